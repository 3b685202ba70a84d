import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../lib/db/embedded';
import { migrate } from '../../lib/db/migrate';
import { resetDatabase } from './reset';

/**
 * Starts a real PostgreSQL for the integration tests: `DATABASE_URL` when set (its public schema is
 * wiped!), else an embedded one under .data/pg-test. Migrates it and hands the URL to the tests.
 */
export default async function setup(project: TestProject) {
  const external = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  const db = external
    ? { url: external, stop: async () => {} }
    : await startEmbeddedPostgres({ dir: '.data/pg-test', port: Number(process.env.TEST_PG_PORT ?? 54339) });
  await resetDatabase(db.url);
  await migrate(db.url);
  project.provide('databaseUrl', db.url);
  return async () => {
    await db.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
