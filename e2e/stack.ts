import { spawn, type ChildProcess } from 'node:child_process';
import { BASE_URL, E2E_SLOT } from './config';

/** One worker's own end-to-end stack: `scripts/e2e-server.ts` (PostgreSQL + `next start`) in a child process. */
export interface Stack {
  url: string;
  /** Stops the server and its PostgreSQL; resolves once the process has exited. */
  stop: () => Promise<void>;
}

/**
 * Starts this worker's stack and waits until it answers /api/health: a wiped, migrated and seeded
 * database and a server of the build that the global setup made (e2e/global-setup.ts). The child
 * stops itself when this worker process goes away without stopping it (see scripts/e2e-server.ts).
 *
 * @param timeoutMs how long start-up may take (PostgreSQL, migrations, seed, `next start`)
 * @throws when the child exits first or is not healthy in time
 */
export async function startStack(timeoutMs = 120_000): Promise<Stack> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/e2e-server.ts'], {
    env: process.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the e2e stack of worker ${E2E_SLOT} exited during start-up (code ${child.exitCode})`);
    try {
      if ((await fetch(`${BASE_URL}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`the e2e stack of worker ${E2E_SLOT} was not healthy at ${BASE_URL} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url: BASE_URL,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
