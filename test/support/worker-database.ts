import pg from 'pg';

/**
 * Integration test files run side by side, one per Vitest worker, and each worker has a database
 * of its own on the one test server: `<base>_w<n>` for the worker whose VITEST_POOL_ID is n, a copy
 * of the migrated base database (`CREATE DATABASE … TEMPLATE <base>`). The files of one worker run
 * in turn, so a file still sees no other file's work in progress, as when all files ran one at a time.
 */

/** The prefix of every worker database's name, for `base` (e.g. `countersign_w`). */
function workerPrefix(base: string): string {
  return `${base}_w`;
}

/** The URL of database `name` on the server of `url`. */
export function onServer(url: string, name: string): string {
  const next = new URL(url);
  next.pathname = `/${name}`;
  return next.toString();
}

/** Runs `work` on a connection to the server's `postgres` database, holding the lock that orders worker-database changes. */
async function withServerLock<T>(baseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: onServer(baseUrl, 'postgres') });
  await client.connect();
  try {
    // Any constant: the lock is only for these functions, and ends with the session.
    await client.query('SELECT pg_advisory_lock(8_154_339)');
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * This worker's database, created on first use as a copy of the migrated base database.
 *
 * @param baseUrl the migrated base database (global setup's `databaseUrl`); nothing may be connected to it
 * @param poolId Vitest's VITEST_POOL_ID for this worker ("1", "2", …)
 * @returns the URL of the worker's database
 * @throws when poolId is not a positive whole number
 */
export async function workerDatabase(baseUrl: string, poolId: string | undefined): Promise<string> {
  if (!poolId || !/^[1-9]\d*$/.test(poolId)) throw new Error(`VITEST_POOL_ID is ${JSON.stringify(poolId)}, not a worker number`);
  const base = new URL(baseUrl).pathname.slice(1);
  const name = `${workerPrefix(base)}${poolId}`;
  await withServerLock(baseUrl, async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(base)}`);
  });
  return onServer(baseUrl, name);
}

/**
 * Drops every worker database of `baseUrl` (those of an earlier run at start, this run's at the end).
 *
 * @param baseUrl the base database; the server must allow DROP DATABASE … WITH (FORCE) (PostgreSQL 13+)
 */
export async function dropWorkerDatabases(baseUrl: string): Promise<void> {
  const base = new URL(baseUrl).pathname.slice(1);
  await withServerLock(baseUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [workerPrefix(base)]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
  });
}
