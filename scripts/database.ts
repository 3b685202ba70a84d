import { startEmbeddedPostgres } from '../lib/db/embedded';

/** Where `npm run dev` and the db:* scripts keep the embedded PostgreSQL. */
export const DEV_DB = { dir: '.data/pg', port: Number(process.env.EMBEDDED_PG_PORT ?? 54329) };

/**
 * The database to use: `DATABASE_URL` when set, else the embedded PostgreSQL (started here).
 * @returns its URL and a stop function (a no-op for an external database)
 */
export async function openDatabase(embedded = DEV_DB): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  return startEmbeddedPostgres(embedded);
}
