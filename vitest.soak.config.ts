import { defineConfig } from 'vitest/config';
import base from './vitest.config';

/** `npm run test:soak`: the long concurrency soak, kept out of `npm test`. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/soak/**/*.test.ts'], exclude: ['node_modules/**'], testTimeout: 600_000 },
});
