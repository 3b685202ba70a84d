import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { dropRouteTypes } from '../scripts/build-types';
import { E2E_SERVER_ENV } from './config';

/** The folder the end-to-end suite's production build goes to. */
export const E2E_DIST_DIR = '.next-e2e';

/**
 * Starts `next build` of the app for the end-to-end suite, into E2E_DIST_DIR, with the servers'
 * environment. `npm test` sets E2E_BUILD_TYPECHECKED=1, having type-checked the project already
 * (next.config.ts); on CI (a fresh clone) nothing reads Next's build cache or the source maps
 * later, so neither is written.
 *
 * @param output where the build's output goes: 'inherit', or a file path
 * @returns the child process and a promise of its end that rejects (with how to see why) when the
 *   build fails; on success the build's route types are dropped (scripts/build-types.ts)
 */
export function startE2eBuild(output: 'inherit' | string): { child: ChildProcess; done: Promise<void> } {
  const fd = output === 'inherit' ? undefined : fs.openSync(output, 'w');
  const child = spawn(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    stdio: ['ignore', fd ?? 'ignore', fd ?? 'inherit'],
    env: { ...process.env, ...E2E_SERVER_ENV, NEXT_DIST_DIR: E2E_DIST_DIR, ...(process.env.CI ? { E2E_THROWAWAY_BUILD: '1' } : {}) },
  });
  if (fd !== undefined) fs.closeSync(fd);
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status, signal) => {
      if (status !== 0) {
        reject(new Error(`next build failed (${signal ?? `exit ${status}`}); run it alone to see why: NEXT_DIST_DIR=${E2E_DIST_DIR} npx next build`));
        return;
      }
      dropRouteTypes(E2E_DIST_DIR);
      resolve();
    });
  });
  return { child, done };
}
