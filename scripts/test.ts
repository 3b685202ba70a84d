// `npm test`: every test, in the order a failure is cheapest to find — the type check, the
// self-check that a failing test fails its runner (scripts/check-test-exit.ts), Vitest (unit and
// integration), then Playwright against a production build. The build for Playwright runs beside
// Vitest, whose integration files spend much of their time waiting on PostgreSQL and timers, instead
// of after it; Playwright then reuses it (E2E_SKIP_BUILD=1). The first step that fails ends the run
// with its exit code, so `npm test` fails exactly when a step does.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startE2eBuild } from '../e2e/build';

const root = path.resolve(import.meta.dirname, '..');

/** Runs `npm run <script>` with the terminal. @returns its exit code (1 when a signal ended it) */
function npmRun(script: string, env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', script], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('error', reject);
    child.on('close', (status) => resolve(status ?? 1));
  });
}

async function main(): Promise<number> {
  for (const script of ['typecheck', 'test:selfcheck']) {
    const status = await npmRun(script);
    if (status !== 0) return status;
  }

  // The project is type-checked: the build skips its own check (next.config.ts).
  process.env.E2E_BUILD_TYPECHECKED = '1';
  fs.mkdirSync(path.join(root, '.data'), { recursive: true });
  const buildLog = path.join(root, '.data', 'e2e-build.log');
  const started = Date.now();
  const build = startE2eBuild(buildLog);
  const built = build.done.then(
    () => ({ ok: true as const, seconds: (Date.now() - started) / 1000 }),
    (error: Error) => ({ ok: false as const, error }),
  );

  const vitest = await npmRun('test:unit');
  if (vitest !== 0) {
    build.child.kill('SIGTERM');
    await built;
    return vitest;
  }
  const outcome = await built;
  if (!outcome.ok) {
    process.stderr.write(fs.readFileSync(buildLog, 'utf8'));
    console.error(`[test] ${outcome.error.message}`);
    return 1;
  }
  console.log(`[test] the end-to-end build took ${outcome.seconds.toFixed(0)} s, beside Vitest (output: ${path.relative(root, buildLog)})`);
  return npmRun('test:e2e', { E2E_SKIP_BUILD: '1' });
}

main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    console.error('[test] failed to run:', error);
    process.exit(1);
  },
);
