import type { ChildProcess } from 'node:child_process';

/**
 * Stops a child process (a `next` server): SIGTERM, then SIGKILL if it has not exited within
 * `graceMs`. Resolves once it has exited, so a caller can stop the database after the server and
 * never leave a server running without its parent.
 * @param graceMs how long the child may take to shut down, in ms (`next start` takes about 3 s)
 */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
