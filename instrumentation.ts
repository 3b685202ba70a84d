/**
 * Next.js calls `register` once when a server process starts. In the Node.js runtime it runs
 * `startNodeServer` (lib/server-start.ts): the environment check that stops a misconfigured server
 * with a clear message, and the in-process job worker.
 */
export async function register() {
  // NEXT_RUNTIME is Next's build-time constant for the bundle being compiled (not configuration):
  // the Edge bundle drops this branch, and with it the module that may call process.exit.
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startNodeServer } = await import('./lib/server-start');
    await startNodeServer();
  }
}
