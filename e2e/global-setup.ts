import { startE2eBuild } from './build';

/**
 * Builds the app once for the whole suite (`next build` into .next-e2e, e2e/build.ts), before the
 * workers start their stacks. E2E_SKIP_BUILD=1 reuses the last build: when app code has not changed
 * since, or when `npm test` built it already, beside the Vitest run (scripts/test.ts).
 */
export default async function globalSetup() {
  if (process.env.E2E_SKIP_BUILD) return;
  const started = Date.now();
  await startE2eBuild('inherit').done;
  console.log(`[e2e] built the app in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
