// `npm run worker`: the job worker on its own (recovery sweep, deadlines, escalations, notifications),
// for deployments whose web servers run with JOBS_IN_PROCESS=false. Needs DATABASE_URL, migrated
// (`npm run db:migrate`). Stops on SIGINT/SIGTERM after the jobs it is running.
import { envOrExit } from '../lib/env';
import { startJobWorker } from '../lib/jobs/worker';

const config = envOrExit();
if (!config.DATABASE_URL) {
  console.error('DATABASE_URL is not set: the worker needs the PostgreSQL the servers use.');
  process.exit(1);
}
const worker = await startJobWorker({ databaseUrl: config.DATABASE_URL, concurrency: config.JOBS_CONCURRENCY });
console.log(`[jobs] worker running (${config.JOBS_CONCURRENCY} at once)`);
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    worker.stop().then(
      () => process.exit(0),
      (error) => {
        console.error('[jobs] worker did not stop cleanly:', error);
        process.exit(1);
      },
    );
  });
}
await worker.promise;
