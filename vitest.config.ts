import path from 'node:path';
import { defineConfig } from 'vitest/config';

/** Settings of the tests against the shared embedded PostgreSQL: the integration tests and the soak. */
export const databaseTestSettings = {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/database-env.ts'],
  // One PostgreSQL for all files; files run one at a time, each with its own rows.
  fileParallelism: false,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      // Next's guard module throws outside React Server Components; tests call server code directly.
      'server-only': path.resolve(import.meta.dirname, 'test/support/empty.ts'),
    },
  },
  test: {
    projects: [
      {
        // Pure functions, tested next to their module (`lib/x/y.test.ts`, `bench/x.test.ts`); no database is started.
        extends: true,
        test: {
          name: 'unit',
          include: ['lib/**/*.test.ts', 'components/**/*.test.ts', 'bench/**/*.test.ts'],
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
