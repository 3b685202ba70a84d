import { inject } from 'vitest';

// Code under test that reads DATABASE_URL itself (the process-wide Prisma client, the job queue)
// reaches the test database, never the app's database a developer's shell may name.
process.env.DATABASE_URL = inject('databaseUrl');
