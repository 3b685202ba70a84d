/**
 * Next.js calls `register` once when a server process starts. It checks the environment first (a
 * bad value, or production without its own BETTER_AUTH_SECRET, stops the server with a message
 * naming the variable; see lib/env.ts) and logs the
 * model in use. Then, unless `JOBS_IN_PROCESS=false` (web servers of a deployment that runs
 * `npm run worker` separately), it starts the job worker in this process (lib/jobs): the
 * crash-recovery sweep, deadlines, escalations and notifications. Any number of workers may run
 * against one database; each job runs once.
 */
export async function register() {
  // NEXT_RUNTIME is Next's build-time constant for the bundle being compiled (not configuration):
  // the edge bundle drops everything below.
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { describeModel, envOrExit, isNextBuild, serverStartProblems } = await import('./lib/env');
  const config = envOrExit();
  // `next build` may load this hook too; a build needs no session secret, only the server does.
  const problems = isNextBuild() ? [] : serverStartProblems(config);
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\nFix these variables and start again (README: "Configuration").`);
    process.exit(1);
  }
  console.log(`[countersign] model: ${describeModel(config.model)}`);
  if (!config.DATABASE_URL || !config.JOBS_IN_PROCESS) return;
  const { startInProcessWorker } = await import('./lib/jobs/worker');
  // The server serves even when the worker cannot start; the error says why (another worker may run the jobs).
  await startInProcessWorker({ databaseUrl: config.DATABASE_URL, concurrency: config.JOBS_CONCURRENCY }).catch((error) =>
    console.error('[jobs] the in-process worker did not start:', error),
  );
}
