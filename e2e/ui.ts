import axe from 'axe-core';
import fs from 'node:fs';
import type { Browser, Page } from '@playwright/test';
import { contextAs, expect } from './support';

/** Where screenshots are written (inside Playwright's output folder, which is not committed). */
export const SCREENSHOT_DIR = 'test-results/screenshots';

/**
 * Whether checkAccessible and screenshotBoth save screenshots: for a person to look at, so not on CI
 * (`CI` set), where they cost about a tenth of the accessibility spec's CPU (51 against 56
 * CPU-seconds, twice each) and nobody opens them; `E2E_SCREENSHOTS=1` takes them anyway. A failed
 * test keeps Playwright's own screenshot either way (playwright.config.ts).
 */
const TAKE_SCREENSHOTS = process.env.E2E_SCREENSHOTS === '1' || !process.env.CI;

/** Saves the page as `<name>-<width>x<height>-<scheme>.png` under SCREENSHOT_DIR (when TAKE_SCREENSHOTS). */
async function saveScreenshot(page: Page, name: string, colorScheme: 'light' | 'dark') {
  if (!TAKE_SCREENSHOTS) return;
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const size = page.viewportSize();
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-${size?.width}x${size?.height}-${colorScheme}.png` });
}

export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 390, height: 844 };

/**
 * Runs axe-core (all rules) on the page as it is now, once with the system in light mode and once
 * in dark mode, and fails on any serious or critical violation. Also saves a screenshot of each
 * scheme as `<name>-<width>x<height>-<scheme>.png` under SCREENSHOT_DIR (not on CI: TAKE_SCREENSHOTS).
 */
export async function checkAccessible(page: Page, name: string) {
  const size = page.viewportSize();
  for (const colorScheme of ['light', 'dark'] as const) {
    await setColorScheme(page, colorScheme);
    // Every page has a title; during a refresh React may swap the <title> for a moment (axe once
    // caught that gap on the chat page after an answer). A page without one still fails here.
    await expect(page).toHaveTitle(/\S/);
    const serious = (await axeViolations(page))
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        rule: violation.id,
        impact: violation.impact,
        help: violation.help,
        nodes: violation.nodes.slice(0, 5).map((node) => `${node.target.join(' ')} — ${node.failureSummary?.split('\n').slice(1).join(' ')}`),
      }));
    expect(serious, `axe on ${name} (${colorScheme}, ${size?.width}px)`).toEqual([]);
    await saveScreenshot(page, name, colorScheme);
  }
  await setColorScheme(page, 'light');
}

/**
 * axe-core's violations (every rule, every impact) on the page's document as it is now.
 *
 * axe-core's source is put into the document once and stays there for later checks of the same
 * document; the run itself takes about 0.1 s. (`@axe-core/playwright` puts the 0.5 MB source into
 * every frame on every check and finishes in a page of its own: about 1.8 s per check, 4 minutes of
 * the suite.) The app has no frames; a page with one fails here rather than being checked in part.
 */
async function axeViolations(page: Page): Promise<axe.Result[]> {
  const frames = page.frames().length;
  if (frames > 1) throw new Error(`checkAccessible checks one document, and this page has ${frames - 1} frame(s)`);
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(axe.source);
  return page.evaluate(async () => {
    const { axe: inPage } = window as unknown as { axe: typeof axe };
    const results = await inPage.run(document, { resultTypes: ['violations'] });
    return results.violations;
  });
}

/**
 * Switches the emulated system colour scheme, then waits until the page is still: no transition or
 * finite animation running (the colour transitions of the switch, 150 ms; a toast fading in),
 * checked again two frames after each wait, for at most 5 s. Endless animations (a spinner) do not count.
 */
async function setColorScheme(page: Page, colorScheme: 'light' | 'dark') {
  await page.emulateMedia({ colorScheme });
  await page.evaluate(async () => {
    const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      await nextFrame();
      await nextFrame();
      const moving = document
        .getAnimations()
        .filter((animation) => animation.playState === 'running' && animation.effect?.getComputedTiming().endTime !== Infinity);
      if (moving.length === 0) return;
      await Promise.race([Promise.all(moving.map((animation) => animation.finished.catch(() => undefined))), new Promise((resolve) => setTimeout(resolve, deadline - Date.now()))]);
    }
  });
}

/** Saves a screenshot in light and dark mode without checking anything (for states already checked; not on CI). */
export async function screenshotBoth(page: Page, name: string) {
  if (!TAKE_SCREENSHOTS) return;
  for (const colorScheme of ['light', 'dark'] as const) {
    await setColorScheme(page, colorScheme);
    await saveScreenshot(page, name, colorScheme);
  }
  await setColorScheme(page, 'light');
}

/** The reviewer's inbox page. */
export class InboxPage {
  constructor(readonly page: Page) {}

  async open() {
    await this.page.goto('/inbox');
  }

  row(toolCallId: string) {
    return this.page.locator(`[data-testid="inbox-row"][data-tool-call-id="${toolCallId}"]`);
  }

  /** Opens a row's detail (the row's own button, not the buttons of the detail under it). */
  async select(toolCallId: string) {
    await this.row(toolCallId).locator('button').first().click();
  }
}

/**
 * A reviewer's inbox in a browser context of their own, at DESKTOP size, opened (and with
 * `toolCallId`, that call selected). The caller closes `context`.
 */
export async function reviewerInbox(browser: Browser, email: string, toolCallId?: string) {
  const context = await contextAs(browser, email);
  const page = await context.newPage();
  await page.setViewportSize(DESKTOP);
  const inbox = new InboxPage(page);
  await inbox.open();
  if (toolCallId) await inbox.select(toolCallId);
  return { context, page, inbox };
}
