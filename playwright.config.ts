import fs from 'node:fs';
import { defineConfig, devices } from '@playwright/test';

// Playwright cannot download its browsers on these machines: use the system Chromium when present,
// or CHROMIUM_PATH. Elsewhere `npx playwright install chromium` works as usual (and Playwright then
// runs headless tests in its own headless shell). Debian's `chromium-headless-shell` comes first: the
// same Blink without the full browser's UI layer, it spent about a tenth less CPU on the same spec
// file (117–121 against 128–145 CPU-seconds for e2e/inbox-review.spec.ts), and Chromium is most of
// what the end-to-end tests cost.
const systemChromium = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => fs.existsSync(file));
const executablePath = process.env.CHROMIUM_PATH ?? systemChromium;

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
        launchOptions: {
          executablePath,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--no-first-run',
          ],
        },
      },
    },
  ],
});
