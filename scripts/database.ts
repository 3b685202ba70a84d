import { startEmbeddedPostgres } from '../lib/db/embedded';
import { env, envOrExit } from '../lib/env';

/** Where `npm run dev` and the db:* scripts keep the embedded PostgreSQL (port: `EMBEDDED_PG_PORT`). */
export const devDatabase = () => ({ dir: '.data/pg', port: env().EMBEDDED_PG_PORT, debug: env().DEBUG_PG });

/**
 * The database to use: `DATABASE_URL` when set, else the embedded PostgreSQL (started here).
 * @returns its URL and a stop function (a no-op for an external database)
 * Exits with the problems when the environment is not valid.
 */
export async function openDatabase(embedded?: { dir: string; port: number; debug?: boolean }): Promise<{ url: string; stop: () => Promise<void> }> {
  const url = envOrExit().DATABASE_URL;
  if (url) return { url, stop: async () => {} };
  return startEmbeddedPostgres(embedded ?? devDatabase());
}
