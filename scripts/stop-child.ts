import type { ChildProcess } from 'node:child_process';

/**
 * Sends `signal` to the child's process group when it leads one (spawned with `detached: true`),
 * else to the child alone. `next dev` runs its server in a process of its own: signalling only the
 * CLI can leave that server running without a parent, holding memory and writing `.next`.
 */
function signalTree(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // No such group (not spawned detached), or it is gone already.
    child.kill(signal);
  }
}

/** Whether any process of the child's group is alive (false when it leads no group). */
function groupAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a child process (a `next` server) and, when it was spawned detached, every process of its
 * group: SIGTERM, then SIGKILL to what is still running after `graceMs`. Resolves once all of them
 * have exited, so a caller can stop the database after the server and never leave a server running
 * without its parent.
 * @param graceMs how long the child may take to shut down, in ms (`next start` takes about 3 s)
 */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  const deadline = Date.now() + graceMs;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
  });
  signalTree(child, 'SIGTERM');
  const timer = setTimeout(() => signalTree(child, 'SIGKILL'), graceMs);
  return exited.then(async () => {
    clearTimeout(timer);
    // The rest of the group (the server `next dev` started) shuts down on its own SIGTERM.
    while (groupAlive(child) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    if (groupAlive(child)) signalTree(child, 'SIGKILL');
  });
}
