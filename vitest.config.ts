import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      // Next's guard module throws outside React Server Components; tests call server code directly.
      'server-only': path.resolve(import.meta.dirname, 'test/support/empty.ts'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The 500-run soak is `npm run test:soak` (vitest.soak.config.ts), not part of `npm test`.
    exclude: ['test/soak/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    // Integration tests share one PostgreSQL; files run one at a time, each with its own rows.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
