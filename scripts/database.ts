import { runningEmbeddedPostgres, startEmbeddedPostgres } from '../lib/db/embedded';
import { env, envOrExit } from '../lib/env';

/** Where `npm run dev` and the db:* scripts keep the embedded PostgreSQL (port: `EMBEDDED_PG_PORT`). */
export const devDatabase = () => ({ dir: '.data/pg', port: env().EMBEDDED_PG_PORT, debug: env().DEBUG_PG });

/**
 * The database to use: `DATABASE_URL` when set, else the embedded PostgreSQL (started here).
 * @param options.attach connect to the embedded PostgreSQL when another process (`npm run dev`)
 *   already runs it on the folder, instead of failing to start a second (scripts that only use the
 *   database: audit:verify, db:migrate, db:seed; not the app, which must own its database)
 * @returns its URL, a stop function (a no-op for an external or attached database) and
 *   `startedHere`: whether this call started an embedded PostgreSQL (which `stop` stops)
 * Exits with the problems when the environment is not valid.
 */
export async function openDatabase(
  embedded?: { dir: string; port: number; debug?: boolean },
  options: { attach?: boolean } = {},
): Promise<{ url: string; stop: () => Promise<void>; startedHere: boolean }> {
  const url = envOrExit().DATABASE_URL;
  if (url) return { url, stop: async () => {}, startedHere: false };
  const where = embedded ?? devDatabase();
  const running = options.attach ? runningEmbeddedPostgres(where.dir) : null;
  if (running) return { url: running, stop: async () => {}, startedHere: false };
  return { ...(await startEmbeddedPostgres(where)), startedHere: true };
}

/**
 * `openDatabase` for a command-line script: when the database cannot be opened (the embedded
 * PostgreSQL's port is taken, its folder in use), prints why and exits 1 instead of a stack trace;
 * the message already says what to do.
 */
export async function openDatabaseOrExit(...args: Parameters<typeof openDatabase>): ReturnType<typeof openDatabase> {
  try {
    return await openDatabase(...args);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
