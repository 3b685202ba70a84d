import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../lib/db/embedded';
import { migrate } from '../../lib/db/migrate';
import { resetDatabase } from './reset';
import { dropWorkerDatabases } from './worker-database';

const DEFAULT_PORT = 54339;

/** Where the embedded test server on `port` keeps its data: one folder per port. */
function testDatabase(port: number): { dir: string; port: number } {
  return { dir: port === DEFAULT_PORT ? '.data/pg-test' : `.data/pg-test-${port}`, port };
}

/**
 * Starts a real PostgreSQL for the integration tests: `TEST_DATABASE_URL` when set (its public
 * schema is wiped!), else an embedded one on TEST_PG_PORT (54339) under .data/pg-test, or under
 * .data/pg-test-<port> on another port, so two runs in one checkout do not share a data folder.
 * Migrates it and hands the URL to the tests. `DATABASE_URL` is never used here: it names the app's database, which a test run must not wipe.
 */
export default async function setup(project: TestProject) {
  const external = process.env.TEST_DATABASE_URL;
  if (!external && process.env.DATABASE_URL) {
    console.log('Tests use their own embedded PostgreSQL, not DATABASE_URL (set TEST_DATABASE_URL to use another; it is wiped).');
  }
  const db = external
    ? { url: external, stop: async () => {} }
    : await startEmbeddedPostgres(testDatabase(Number(process.env.TEST_PG_PORT ?? DEFAULT_PORT)));
  // Files run side by side, each worker in a copy of this database, unless the database is
  // external (creating databases there may not be allowed): then one at a time (vitest.config.ts).
  const perWorker = !external;
  if (perWorker) await dropWorkerDatabases(db.url);
  await resetDatabase(db.url);
  await migrate(db.url);
  project.provide('databaseUrl', db.url);
  project.provide('databasePerWorker', perWorker);
  return async () => {
    if (perWorker) await dropWorkerDatabases(db.url);
    await db.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated base database. */
    databaseUrl: string;
    /** Whether each worker uses a copy of it (test/support/worker-database.ts). */
    databasePerWorker: boolean;
  }
}
