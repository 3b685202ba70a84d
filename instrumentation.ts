/**
 * Next.js calls `register` once when a server process starts. It validates the settings; then each
 * server sweeps for runs whose process died (see lib/agent/recovery.ts): at start-up, then every few
 * seconds. The sweep is one indexed query and is safe to run from every server at once.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // A bad setting stops the server at start-up, naming the variable, rather than at first use.
  const { checkSettingsAtStartup } = await import('./lib/security/settings');
  checkSettingsAtStartup();
  if (!process.env.DATABASE_URL) return;
  const { startRecoverySweeps } = await import('./lib/store/sweeps');
  startRecoverySweeps();
}
