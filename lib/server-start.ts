import { describeModel, envOrExit, isNextBuild, serverStartProblems } from './env';

/**
 * What a Node.js server process does once when it starts (called by `instrumentation.ts`, kept in
 * this module so that the Edge bundle of that hook never sees `process.exit`, which Next warns about
 * on every request in development). Checks the environment first (a bad value, or production
 * without its own BETTER_AUTH_SECRET, stops the server with a message naming the variable; see
 * lib/env.ts) and logs the model in use. Then, unless `JOBS_IN_PROCESS=false` (web servers of a
 * deployment that runs `npm run worker` separately), it starts the job worker in this process
 * (lib/jobs): the crash-recovery sweep, deadlines, escalations and notifications. Any number of
 * workers may run against one database; each job runs once.
 */
export async function startNodeServer(): Promise<void> {
  const config = envOrExit();
  // `next build` may load the hook too; a build needs no session secret, only the server does.
  const problems = isNextBuild() ? [] : serverStartProblems(config);
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\nFix these variables and start again (README: "Configuration").`);
    process.exit(1);
  }
  console.log(`[countersign] model: ${describeModel(config.model)}`);
  if (!config.DATABASE_URL || !config.JOBS_IN_PROCESS) return;
  const { startInProcessWorker } = await import('./jobs/worker');
  // The server serves even when the worker cannot start; the error says why (another worker may run the jobs).
  await startInProcessWorker({ databaseUrl: config.DATABASE_URL, concurrency: config.JOBS_CONCURRENCY }).catch((error) =>
    console.error('[jobs] the in-process worker did not start:', error),
  );
}
