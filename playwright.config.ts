import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_EXECUTABLE } from './e2e/browsers';

/** Workers run side by side, each with a stack of its own (e2e/config.ts); an external database allows one. */
const workers = process.env.E2E_DATABASE_URL ? 1 : Number(process.env.E2E_WORKERS ?? 2);
if (!Number.isInteger(workers) || workers < 1 || workers > 8) throw new Error(`E2E_WORKERS=${process.env.E2E_WORKERS} is not a whole number from 1 to 8`);

export default defineConfig({
  testDir: 'e2e',
  // Files are shared out among the workers; the tests of one file run in order in one worker.
  fullyParallel: false,
  workers,
  retries: 0,
  // Two workers share two cores: a long flow (several pages, axe in light and dark) takes longer than alone.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  // Builds the app once; each worker then starts its own database and server (e2e/support.ts).
  globalSetup: './e2e/global-setup.ts',
  use: {
    // Recording a trace of every test (DOM snapshots and a screencast of each step) costs about an
    // eighth more CPU (measured on two spec files: 52 against 46 CPU-seconds) on machines where CPU
    // is what bounds the suite; E2E_TRACE=1 records them and keeps those of failed tests. Failures
    // always keep a screenshot and Playwright's error context.
    trace: process.env.E2E_TRACE ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        // The system's headless shell or Chromium when there is one (e2e/browsers.ts explains which).
        launchOptions: { executablePath: CHROMIUM_EXECUTABLE, args: CHROMIUM_ARGS },
      },
    },
  ],
});
