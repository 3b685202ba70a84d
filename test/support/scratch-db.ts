import pg from 'pg';
import { migrate } from '../../lib/db/migrate';
import { databaseUrl } from './harness';
import { onServer } from './worker-database';

/**
 * A migrated database of its own on the test server (for tests that need a setting of their own,
 * or many rows others must not see). Dropped by `drop()`.
 *
 * @param name database name (letters, digits, underscores)
 * @param options.timezone the database's default session time zone (`ALTER DATABASE … SET timezone`)
 */
export async function createScratchDatabase(name: string, options: { timezone?: string } = {}) {
  if (!/^\w+$/.test(name)) throw new Error(`Bad database name ${name}`);
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  if (options.timezone) await admin(`ALTER DATABASE ${name} SET timezone = '${options.timezone.replaceAll("'", "''")}'`);
  const url = onServer(databaseUrl(), name);
  await migrate(url);
  return { url, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
