import { inject } from 'vitest';
import { workerDatabase } from './worker-database';

// This worker's own database (see worker-database.ts), or the one shared database when the run uses
// TEST_DATABASE_URL (its files then run one at a time). Code under test that reads DATABASE_URL
// itself (the process-wide Prisma client, the job queue) reaches it too, never the app's database a
// developer's shell may name. `databaseUrl()` in harness.ts reads TEST_WORKER_DATABASE_URL, which
// no test changes (some point DATABASE_URL elsewhere on purpose).
const url = inject('databasePerWorker') ? await workerDatabase(inject('databaseUrl'), process.env.VITEST_POOL_ID) : inject('databaseUrl');
process.env.TEST_WORKER_DATABASE_URL = url;
process.env.DATABASE_URL = url;
