import { spawnSync } from 'node:child_process';
import { dropRouteTypes } from '../scripts/build-types';
import { E2E_SERVER_ENV } from './config';

/**
 * Builds the app once for the whole suite (`next build` into .next-e2e), before the workers start
 * their stacks; E2E_SKIP_BUILD=1 reuses the last build (when app code has not changed since).
 */
export default function globalSetup() {
  if (process.env.E2E_SKIP_BUILD) return;
  const started = Date.now();
  const build = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    // `npm test` sets E2E_BUILD_TYPECHECKED=1: it has type-checked the project already (next.config.ts).
    // On CI (a fresh clone) nothing reads Next's build cache or the source maps later: neither is written (next.config.ts).
    env: { ...process.env, ...E2E_SERVER_ENV, NEXT_DIST_DIR: '.next-e2e', ...(process.env.CI ? { E2E_THROWAWAY_BUILD: '1' } : {}) },
  });
  if (build.status !== 0) throw new Error(`next build failed (exit ${build.status}); run it alone to see why: NEXT_DIST_DIR=.next-e2e npx next build`);
  dropRouteTypes('.next-e2e');
  console.log(`[e2e] built the app in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
