import { spawn, type ChildProcess } from 'node:child_process';
import { E2E_DATABASE_URL, E2E_SERVER_ENV, nextStartCommand } from './config';

/** An extra `next start` process on the same build and database as the main test server. */
export interface ExtraServer {
  url: string;
  process: ChildProcess;
  /** SIGKILL, as a crash would; resolves once the process is gone. */
  kill: () => Promise<void>;
}

/**
 * Starts another server (a second instance behind a load balancer, or one to crash on purpose).
 * @param input.port TCP port on 127.0.0.1
 * @param input.env extra environment, e.g. SCRIPTED_MODEL_DELAY_MS
 */
export async function startServer(input: { port: number; env?: Record<string, string> }): Promise<ExtraServer> {
  const child = spawn(...nextStartCommand(input.port), {
    env: { ...process.env, ...E2E_SERVER_ENV, DATABASE_URL: E2E_DATABASE_URL, NEXT_DIST_DIR: '.next-e2e', ...input.env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${input.port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      // A server still starting when time is up would otherwise outlive the test.
      child.kill('SIGKILL');
      throw new Error(`server on ${input.port} did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    process: child,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
