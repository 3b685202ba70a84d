import fs from 'node:fs';
import { chromium, type Browser } from '@playwright/test';

/**
 * Which Chromium the end-to-end tests launch. Playwright cannot download its browsers on these
 * machines, so the system's is used when present, or CHROMIUM_PATH; elsewhere
 * `npx playwright install chromium` works as usual (and Playwright then runs headless tests in its
 * own headless shell).
 *
 * Debian's `chromium-headless-shell` comes first: the same Blink without the full browser's UI
 * layer, it spent about a tenth less CPU on the same spec file (117–121 against 128–145
 * CPU-seconds for e2e/inbox-review.spec.ts, which then also held inbox-triage.spec.ts), and Chromium is most of what the end-to-end tests cost.
 * It lacks one thing a test needs: web notifications are always "denied" there, whatever the
 * context grants (see `launchFullChromium`).
 */
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const FULL_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => fs.existsSync(file));

/** The browser of the `chromium` project: CHROMIUM_PATH, else the headless shell, else the full system Chromium (undefined: Playwright's own). */
export const CHROMIUM_EXECUTABLE = process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : FULL_CHROMIUM);

/** Flags for a system Chromium in a container (no sandbox, no GPU, nothing fetched in the background). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/**
 * A full Chromium (not a headless shell) for what only it can do: show web notifications, which a
 * headless shell always reports as "denied". The system's when installed, else Playwright's own
 * full build (`channel: 'chromium'`, from `npx playwright install chromium`). The caller closes it.
 */
export async function launchFullChromium(): Promise<Browser> {
  if (process.env.CHROMIUM_PATH && process.env.CHROMIUM_PATH !== HEADLESS_SHELL) {
    return chromium.launch({ executablePath: process.env.CHROMIUM_PATH, args: CHROMIUM_ARGS });
  }
  if (FULL_CHROMIUM) return chromium.launch({ executablePath: FULL_CHROMIUM, args: CHROMIUM_ARGS });
  return chromium.launch({ channel: 'chromium' });
}
