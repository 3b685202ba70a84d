// `npm run test:selfcheck`: proves that a failing test fails the test command.
//
// Each runner of `npm test` (Vitest with the repository's config and its embedded PostgreSQL, and
// Playwright) runs a throw-away passing test, which must exit 0, and a throw-away failing test,
// which must exit non-zero. A library exit hook once turned Vitest's failure into exit code 0 (see
// lib/db/embedded.ts); this check would have caught it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const scratch = path.join(root, 'test', `selfcheck-tmp-${process.pid}`);

interface Case {
  runner: 'vitest' | 'playwright';
  outcome: 'pass' | 'fail';
}

function writeCase({ runner, outcome }: Case): string[] {
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.mkdirSync(scratch, { recursive: true });
  const expected = outcome === 'pass' ? 1 : 2;
  if (runner === 'vitest') {
    const file = path.join(scratch, 'exit-code.test.ts');
    fs.writeFileSync(file, `import { expect, test } from 'vitest';\ntest('exit code', () => { expect(1).toBe(${expected}); });\n`);
    return ['vitest', 'run', path.relative(root, file)];
  }
  fs.writeFileSync(
    path.join(scratch, 'exit-code.spec.ts'),
    `import { expect, test } from '@playwright/test';\ntest('exit code', () => { expect(1).toBe(${expected}); });\n`,
  );
  const config = path.join(scratch, 'playwright.config.ts');
  fs.writeFileSync(config, `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: '.', reporter: 'line' });\n`);
  return ['playwright', 'test', '--config', config];
}

const cases: Case[] = [
  { runner: 'vitest', outcome: 'pass' },
  { runner: 'vitest', outcome: 'fail' },
  { runner: 'playwright', outcome: 'pass' },
  { runner: 'playwright', outcome: 'fail' },
];

let wrong = 0;
try {
  for (const testCase of cases) {
    const args = writeCase(testCase);
    const result = spawnSync('npx', args, { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
    const ok = testCase.outcome === 'pass' ? result.status === 0 : result.status !== 0 && result.status !== null;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${testCase.runner}: a ${testCase.outcome}ing test exits ${result.status}`);
    if (!ok) {
      wrong++;
      console.log(result.stdout.slice(-2000), result.stderr.slice(-2000));
    }
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
if (wrong > 0) {
  console.error(`${wrong} runner(s) do not report test results through their exit code.`);
  process.exit(1);
}
