import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Settings of the tests against the embedded PostgreSQL: the integration tests and the soak. One
 * server for all files; each worker has a database of its own on it (test/support/worker-database.ts),
 * so files run side by side. An external TEST_DATABASE_URL is one database: its files run one at a time.
 */
export const databaseTestSettings = {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/database-env.ts'],
  fileParallelism: !process.env.TEST_DATABASE_URL,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

/**
 * How many test files run at once. Vitest's default, one fewer than the cores, is one file at a time
 * on two cores, though most integration files spend their time waiting on PostgreSQL or a timer.
 */
const maxWorkers = Math.max(2, Math.min(4, os.availableParallelism()));

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      // Next's guard module throws outside React Server Components; tests call server code directly.
      'server-only': path.resolve(import.meta.dirname, 'test/support/empty.ts'),
    },
  },
  test: {
    maxWorkers,
    projects: [
      {
        // Pure functions, tested next to their module (`lib/x/y.test.ts`, `bench/x.test.ts`); no database is started.
        extends: true,
        test: {
          name: 'unit',
          include: ['lib/**/*.test.ts', 'components/**/*.test.ts', 'bench/**/*.test.ts'],
          // Pure functions share no state between files, so a worker keeps the modules it imported
          // for the next file instead of importing them again (19 → 5 s for this project alone).
          // A test that fakes timers puts real ones back after itself.
          isolate: false,
          exclude: ['node_modules/**', 'lib/generated/**', 'bench/peer/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // The 500-run soak is `npm run test:soak` (vitest.soak.config.ts), not part of `npm test`.
          exclude: ['test/soak/**', 'node_modules/**'],
          ...databaseTestSettings,
        },
      },
    ],
  },
});
