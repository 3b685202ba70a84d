import { type ChildProcess, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type OpenedDatabase, startWithDatabase } from '../../scripts/start-up';

/*
 * `npm run dev` / `npm start` (scripts/dev.ts) once crashed in the seed and left its embedded
 * PostgreSQL running, so the next start found the port and the data folder taken. Whatever fails
 * after the database started now stops it and exits non-zero; a stop signal behaves as before.
 */

/** A stand-in for the database, recording the order of what happened. */
function fakeDatabase(events: string[]): OpenedDatabase {
  return { url: 'postgresql://fake/db', startedHere: true, stop: async () => void events.push('database stopped') };
}

/** Runs the start-up with `steps` and `spawnServer`; resolves with the exit code and what happened. */
function run(options: { steps?: { name: string; run: (url: string) => Promise<void> }[]; spawnServer?: (url: string) => ChildProcess }) {
  const events: string[] = [];
  const lines: string[] = [];
  let stop: (() => void) | undefined;
  let server: ChildProcess | undefined;
  const exited = new Promise<number>((resolve) => {
    void startWithDatabase(fakeDatabase(events), {
      steps: options.steps ?? [],
      spawnServer: (url) => {
        server = (options.spawnServer ?? sleeper)(url);
        server.once('exit', () => events.push('server exited'));
        return server;
      },
      onStopSignal: (handler) => (stop = handler),
      exit: (code) => {
        events.push(`exit ${code}`);
        resolve(code);
      },
      error: (...data) => lines.push(data.map((item) => (item instanceof Error ? `[${item.message}]` : String(item))).join(' ')),
    });
  });
  return { exited, events, lines, signal: () => stop?.(), server: () => server };
}

const sleeper = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });

describe('npm start stops its database when a later start-up step fails', () => {
  it('a failing seed stops the database, says why, and exits 1 without starting the server', async () => {
    const ran: string[] = [];
    const started = run({
      steps: [
        { name: 'migrating the database', run: async (url) => void ran.push(`migrate ${url}`) },
        {
          name: 'seeding the demo data',
          run: async () => {
            throw new Error('duplicate key value violates unique constraint "users_email_key"');
          },
        },
        { name: 'never', run: async () => void ran.push('never') },
      ],
      spawnServer: () => {
        throw new Error('must not start');
      },
    });
    expect(await started.exited).toBe(1);
    expect(ran).toEqual(['migrate postgresql://fake/db']);
    expect(started.events).toEqual(['database stopped', 'exit 1']);
    expect(started.lines).toEqual([
      '[duplicate key value violates unique constraint "users_email_key"]',
      'Start-up failed while seeding the demo data: duplicate key value violates unique constraint "users_email_key"; stopping the embedded PostgreSQL.',
      'Stopped the embedded PostgreSQL.',
    ]);
  });

  it('a server that cannot be spawned stops the database and exits 1', async () => {
    const started = run({ spawnServer: () => spawn('/nonexistent/next-binary', [], { stdio: 'ignore' }) });
    expect(await started.exited).toBe(1);
    expect(started.events).toEqual(['database stopped', 'exit 1']);
    expect(started.lines[0]).toMatch(/^Could not start Next\.js: spawn \/nonexistent\/next-binary ENOENT; stopping the embedded PostgreSQL\.$/);
  });

  it('a server that exits with an error (no production build) stops the database and exits with its code', async () => {
    const started = run({ spawnServer: () => spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore', detached: true }) });
    expect(await started.exited).toBe(3);
    expect(started.events).toEqual(['server exited', 'database stopped', 'exit 3']);
    expect(started.lines).toEqual(['Next.js exited with code 3; stopping the embedded PostgreSQL.', 'Stopped the embedded PostgreSQL.']);
  });

  it('a server killed by a signal stops the database and exits 128 + its number', async () => {
    const started = run({});
    await new Promise((resolve) => started.server()!.once('spawn', resolve));
    process.kill(started.server()!.pid!, 'SIGKILL');
    expect(await started.exited).toBe(137);
    expect(started.events).toEqual(['server exited', 'database stopped', 'exit 137']);
    expect(started.lines[0]).toBe('Next.js was stopped by SIGKILL; stopping the embedded PostgreSQL.');
  });

  it('a stop signal (Ctrl+C) stops the server, then the database, and exits 0 without a word', async () => {
    const started = run({});
    await new Promise((resolve) => started.server()!.once('spawn', resolve));
    started.signal();
    started.signal(); // a second Ctrl+C while stopping changes nothing
    expect(await started.exited).toBe(0);
    expect(started.events).toEqual(['server exited', 'database stopped', 'exit 0']);
    expect(started.lines).toEqual([]);
  });

  it('an external database (DATABASE_URL) is not called stopped', async () => {
    const events: string[] = [];
    const lines: string[] = [];
    const code = await new Promise<number>((resolve) => {
      void startWithDatabase(
        { url: 'postgresql://elsewhere/db', startedHere: false, stop: async () => void events.push('stop (no-op)') },
        {
          steps: [{ name: 'migrating the database', run: async () => Promise.reject(new Error('connection refused')) }],
          spawnServer: () => {
            throw new Error('must not start');
          },
          onStopSignal: () => {},
          exit: resolve,
          error: (...data) => lines.push(data.map(String).join(' ')),
        },
      );
    });
    expect(code).toBe(1);
    expect(events).toEqual(['stop (no-op)']);
    expect(lines.at(-1)).toBe('Start-up failed while migrating the database: connection refused.');
  });
});
