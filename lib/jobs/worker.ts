import { Logger, run, type Runner, type TaskList } from 'graphile-worker';
import pg from 'pg';
import { poolConfig } from '@/lib/store/db';
import { JOB_KINDS } from './queue';

/**
 * graphile-worker's own log, quiet: only warnings and errors (its info lines say "worker started",
 * "job completed" for every job).
 */
const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error') console.error(`[jobs] ${message}`);
  else if (level === 'warning') console.warn(`[jobs] ${message}`);
});

export interface JobWorker {
  /** Stops taking jobs, waits for running ones, closes the pool. */
  stop: () => Promise<void>;
  /** Resolves when the worker stopped (or rejects when it failed). */
  promise: Promise<void>;
}

/**
 * Starts a graphile-worker runner for every job kind (see queue.ts) on `databaseUrl`: installs or
 * upgrades its schema, makes sure the recovery sweep is scheduled, and runs jobs until stopped.
 * Any number of workers may run against one database (servers with `JOBS_IN_PROCESS`, and
 * `npm run worker` processes): each job runs on one of them.
 *
 * The recovery sweep schedules its next run itself (one queued sweep job, `job_key`
 * `recovery-sweep`); a cron entry re-adds it every minute in case the worker running it died.
 *
 * @param input.databaseUrl PostgreSQL URL
 * @param input.concurrency jobs run at once by this worker
 * @param input.tasks the task list (default: the app's, lib/jobs/tasks.ts)
 */
export async function startJobWorker(input: {
  databaseUrl: string;
  concurrency: number;
  tasks?: TaskList;
}): Promise<JobWorker> {
  const pool = new pg.Pool(poolConfig(input.databaseUrl, input.concurrency + 2));
  // An idle connection that drops (database restart) is replaced on next use; say so, do not crash.
  pool.on('error', (error) => console.error('[jobs] database connection lost:', error.message));
  pool.on('connect', (client) => client.on('error', (error) => console.error('[jobs] database connection lost:', error.message)));
  const taskList = input.tasks ?? (await (await import('./tasks')).appTasks());
  const runner: Runner = await run({
    pgPool: pool,
    concurrency: input.concurrency,
    // The process decides what a signal does (next's server, scripts/worker.ts): stop() on shutdown.
    noHandleSignals: true,
    // Jobs due in the future (deadlines, the next sweep) are found by polling; new ones by NOTIFY.
    pollInterval: 500,
    logger: quietLogger,
    taskList,
    crontab: `* * * * * ${JOB_KINDS.recoverySweep} ?jobKey=${JOB_KINDS.recoverySweep}&jobKeyMode=preserve_run_at`,
  });
  // The first sweep right away (or keep the queued one's time when another worker scheduled it).
  await runner.addJob(JOB_KINDS.recoverySweep, {}, { jobKey: JOB_KINDS.recoverySweep, jobKeyMode: 'preserve_run_at' });
  let stopped: Promise<void> | null = null;
  return {
    promise: runner.promise,
    stop: () =>
      (stopped ??= (async () => {
        await runner.stop();
        await pool.end();
      })()),
  };
}

const globalForWorker = globalThis as unknown as { countersignJobWorker?: Promise<JobWorker> };

/**
 * The in-process worker of a server (once per process, kept across dev hot reloads). Started by
 * instrumentation.ts unless `JOBS_IN_PROCESS=false`.
 */
export function startInProcessWorker(input: { databaseUrl: string; concurrency: number }): Promise<JobWorker> {
  globalForWorker.countersignJobWorker ??= startJobWorker(input);
  return globalForWorker.countersignJobWorker;
}
