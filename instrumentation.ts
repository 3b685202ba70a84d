/**
 * Next.js calls `register` once when a server process starts. It checks the environment first (a
 * bad value stops the server with a message naming the variable; see lib/env.ts) and logs the
 * model in use. Then each server sweeps for runs whose process died (see lib/agent/recovery.ts):
 * at start-up, then every few seconds. The sweep is one indexed query and is safe to run from every
 * server at once.
 */
export async function register() {
  // NEXT_RUNTIME is Next's build-time constant for the bundle being compiled (not configuration):
  // the edge bundle drops everything below.
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { describeModel, envOrExit } = await import('./lib/env');
  const config = envOrExit();
  console.log(`[countersign] model: ${describeModel(config.model)}`);
  if (!config.DATABASE_URL) return;
  const { startRecoverySweeps } = await import('./lib/store/sweeps');
  startRecoverySweeps();
}
