import fs from 'node:fs';
import { defineConfig, devices } from '@playwright/test';
import { E2E_PORT } from './e2e/config';

// Playwright cannot download its browsers on these machines: use the system Chromium when present
// (Debian's `chromium`), or CHROMIUM_PATH. Elsewhere `npx playwright install chromium` works as usual.
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => fs.existsSync(file));
const executablePath = process.env.CHROMIUM_PATH ?? systemChromium;

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    trace: 'retain-on-failure',
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
  webServer: {
    command: 'npx tsx scripts/e2e-server.ts',
    url: `http://127.0.0.1:${E2E_PORT}/api/health`,
    // The production build runs inside this start-up (about 2–5 min on 2 cores).
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: 'pipe',
  },
});
