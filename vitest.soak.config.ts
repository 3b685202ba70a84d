import { defineConfig } from 'vitest/config';
import base, { databaseTestSettings } from './vitest.config.ts';

/** `npm run test:soak`: the long concurrency soak, kept out of `npm test`. */
export default defineConfig({
  resolve: base.resolve,
  test: { ...databaseTestSettings, include: ['test/soak/**/*.test.ts'], exclude: ['node_modules/**'], testTimeout: 600_000 },
});
