// `npm run test:selfcheck`: proves that a failing test fails the test command.
//
// Each runner of `npm test` runs a throw-away passing test, which must exit 0, and a throw-away
// failing test, which must exit non-zero: Vitest's "integration" project (test/**, with the embedded
// PostgreSQL of its globalSetup — the test reads the database URL that setup provides, so a pass
// proves the setup ran), Vitest's "unit" project (co-located lib/**/*.test.ts, no database), and
// Playwright. A library exit hook once turned Vitest's failure into exit code 0 (see
// lib/db/embedded.ts); this check would have caught it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
// Scratch folders: under test/ for the integration project and Playwright, under lib/ for the unit project.
const scratchDirs = ['test', 'lib'].map((folder) => path.join(root, folder, `selfcheck-tmp-${process.pid}`));

interface Case {
  runner: 'vitest' | 'playwright';
  /** The Vitest project the test file belongs to (by where it lies). */
  project?: 'integration' | 'unit';
  outcome: 'pass' | 'fail';
}

function removeScratch() {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
}

function writeCase({ runner, project, outcome }: Case): string[] {
  removeScratch();
  const scratch = scratchDirs[project === 'unit' ? 1 : 0];
  fs.mkdirSync(scratch, { recursive: true });
  const expected = outcome === 'pass' ? 1 : 2;
  if (runner === 'vitest') {
    const file = path.join(scratch, 'exit-code.test.ts');
    const database = project === 'integration' ? `expect(inject('databaseUrl')).toMatch(/^postgres/); ` : '';
    fs.writeFileSync(file, `import { expect, inject, test } from 'vitest';\ntest('exit code', () => { ${database}expect(1).toBe(${expected}); });\n`);
    return ['vitest', 'run', '--project', project!, path.relative(root, file)];
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
  { runner: 'vitest', project: 'integration', outcome: 'pass' },
  { runner: 'vitest', project: 'integration', outcome: 'fail' },
  { runner: 'vitest', project: 'unit', outcome: 'pass' },
  { runner: 'vitest', project: 'unit', outcome: 'fail' },
  { runner: 'playwright', outcome: 'pass' },
  { runner: 'playwright', outcome: 'fail' },
];

let wrong = 0;
try {
  for (const testCase of cases) {
    const args = writeCase(testCase);
    const result = spawnSync('npx', args, { cwd: root, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
    // A failing case must fail at its own assertion (after the database check), not for another reason.
    const failedAsMeant = `${result.stdout}${result.stderr}`.includes(testCase.runner === 'vitest' ? 'expected 1 to be 2' : 'Expected: 2');
    const ok = testCase.outcome === 'pass' ? result.status === 0 : result.status !== 0 && result.status !== null && failedAsMeant;
    const name = testCase.project ? `${testCase.runner} (${testCase.project})` : testCase.runner;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: a ${testCase.outcome}ing test exits ${result.status}`);
    if (!ok) {
      wrong++;
      console.log(result.stdout.slice(-2000), result.stderr.slice(-2000));
    }
  }
} finally {
  removeScratch();
}
if (wrong > 0) {
  console.error(`${wrong} runner(s) do not report test results through their exit code.`);
  process.exit(1);
}
