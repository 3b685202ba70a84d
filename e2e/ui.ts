import AxeBuilder from '@axe-core/playwright';
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { expect } from './support';

/** Where screenshots are written (inside Playwright's output folder, which is not committed). */
export const SCREENSHOT_DIR = 'test-results/screenshots';

export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 390, height: 844 };

/**
 * Runs axe-core (all rules) on the page as it is now, once with the system in light mode and once
 * in dark mode, and fails on any serious or critical violation. Also saves a screenshot of each
 * scheme as `<name>-<width>x<height>-<scheme>.png` under SCREENSHOT_DIR.
 */
export async function checkAccessible(page: Page, name: string) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const size = page.viewportSize();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // Let colour transitions (150 ms) settle before contrast is measured.
    await page.waitForTimeout(300);
    // Every page has a title; during a refresh React may swap the <title> for a moment (axe once
    // caught that gap on the chat page after an answer). A page without one still fails here.
    await expect(page).toHaveTitle(/\S/);
    const { violations } = await new AxeBuilder({ page }).analyze();
    const serious = violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        rule: violation.id,
        impact: violation.impact,
        help: violation.help,
        nodes: violation.nodes.slice(0, 5).map((node) => `${node.target.join(' ')} — ${node.failureSummary?.split('\n').slice(1).join(' ')}`),
      }));
    expect(serious, `axe on ${name} (${colorScheme}, ${size?.width}px)`).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-${size?.width}x${size?.height}-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Saves a screenshot in light and dark mode without checking anything (for states already checked). */
export async function screenshotBoth(page: Page, name: string) {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const size = page.viewportSize();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-${size?.width}x${size?.height}-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
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
