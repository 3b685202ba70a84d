import fs from 'node:fs';
import path from 'node:path';

/**
 * Removes the route types `next build` generated in a second build folder (`.next-e2e`,
 * `.next-bench`) once that build is done. Next lists every build folder's `types/` in
 * tsconfig.json, so types left there from an older checkout (a page since moved or deleted) would
 * fail the type check of every later `next build`, whatever folder it builds into. `next start`
 * does not read them, and each build writes its own again.
 *
 * @param distDir the build folder, relative to the project root
 */
export function dropRouteTypes(distDir: string): void {
  for (const folder of ['types', path.join('dev', 'types')]) {
    fs.rmSync(path.join(distDir, folder), { recursive: true, force: true });
  }
}
