// `npm run test:selfcheck`: proves that a failing test fails the test command.
//
// Each runner of `npm test` runs a throw-away passing test, which must exit 0, and a throw-away
// failing test, which must exit non-zero: Vitest's "integration" project (test/**, with the embedded
// PostgreSQL of its globalSetup — the test reads the database URL that setup provides, so a pass
// proves the setup ran), Vitest's "unit" project (co-located lib/**/*.test.ts, no database), and
// Playwright. A library exit hook once turned Vitest's failure into exit code 0 (see
// lib/db/embedded.ts); this check would have caught it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

interface Case {
  runner: 'vitest' | 'playwright';
  /** The Vitest project the test file belongs to (by where it lies). */
  project?: 'integration' | 'unit';
  outcome: 'pass' | 'fail';
}

/**
 * The scratch folder of one runner's cases: under lib/ for the unit project, under test/ for the
 * integration project and Playwright, one folder each, so a runner never picks up another's file.
 */
function scratchDir({ runner, project }: Case): string {
  return path.join(root, project === 'unit' ? 'lib' : 'test', `selfcheck-tmp-${process.pid}-${project ?? runner}`);
}

/** Writes the case's throw-away test into its scratch folder (emptied first). @returns the `npx` arguments that run it */
function writeCase(testCase: Case): string[] {
  const { runner, project, outcome } = testCase;
  const scratch = scratchDir(testCase);
  fs.rmSync(scratch, { recursive: true, force: true });
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

/** Runs `npx <args>` in the project folder. @returns its exit status (null when a signal ended it) and everything it printed */
function run(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', args, { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** Runs one case. @returns its report line, and the output's tail when it went wrong */
async function check(testCase: Case): Promise<{ ok: boolean; report: string }> {
  const { status, output } = await run(writeCase(testCase));
  // A failing case must fail at its own assertion (after the database check), not for another reason.
  const failedAsMeant = output.includes(testCase.runner === 'vitest' ? 'expected 1 to be 2' : 'Expected: 2');
  const ok = testCase.outcome === 'pass' ? status === 0 : status !== 0 && status !== null && failedAsMeant;
  const name = testCase.project ? `${testCase.runner} (${testCase.project})` : testCase.runner;
  const line = `${ok ? 'ok  ' : 'FAIL'} ${name}: a ${testCase.outcome}ing test exits ${status}`;
  return { ok, report: ok ? line : `${line}\n${output.slice(-4000)}` };
}

// Each runner's passing case, then its failing one; the three runners side by side.
const runners: Case[][] = [
  [
    { runner: 'vitest', project: 'integration', outcome: 'pass' },
    { runner: 'vitest', project: 'integration', outcome: 'fail' },
  ],
  [
    { runner: 'vitest', project: 'unit', outcome: 'pass' },
    { runner: 'vitest', project: 'unit', outcome: 'fail' },
  ],
  [
    { runner: 'playwright', outcome: 'pass' },
    { runner: 'playwright', outcome: 'fail' },
  ],
];

let wrong = 0;
try {
  const reports = await Promise.all(
    runners.map(async (cases) => {
      const results = [];
      for (const testCase of cases) results.push(await check(testCase));
      return results;
    }),
  );
  for (const { ok, report } of reports.flat()) {
    console.log(report);
    if (!ok) wrong++;
  }
} finally {
  for (const testCase of runners.flat()) fs.rmSync(scratchDir(testCase), { recursive: true, force: true });
}
if (wrong > 0) {
  console.error(`${wrong} case(s) went wrong: a runner that does not report a result through its exit code would let a failing suite pass.`);
  process.exit(1);
}
