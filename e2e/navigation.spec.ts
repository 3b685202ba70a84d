import pg from 'pg';
import { migrate } from '../lib/db/migrate';
import { E2E_DATABASE_URL, extraPort } from './config';
import { startServer } from './servers';
import { ACCOUNTS, contextAs, expect, test } from './support';
import { checkAccessible, DESKTOP, MOBILE, screenshotBoth } from './ui';

test.describe('navigation', () => {
  test('an admin has Inbox, Audit and Sign out on every page, at 1280 and at 390 px; the links and Sign out work', async ({ browser }) => {
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const page = await alex.newPage();
    for (const size of [DESKTOP, MOBILE]) {
      await page.setViewportSize(size);
      for (const path of ['/', '/inbox', '/audit', '/forbidden', '/no-such-page']) {
        await page.goto(path);
        for (const testId of ['nav-inbox', 'nav-audit', 'sign-out']) {
          await expect(page.getByTestId(testId), `${testId} on ${path} at ${size.width}px`).toBeVisible();
        }
      }
    }
    // Below 640 px the links are icons, still named for assistive technology.
    await expect(page.getByRole('link', { name: 'Audit' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();

    await page.goto('/');
    await expect(page.getByTestId('chat-agent')).toBeVisible();
    await page.getByTestId('nav-audit').click();
    await expect(page).toHaveURL(/\/audit$/);
    await expect(page.getByTestId('nav-audit')).toHaveAttribute('aria-current', 'page');
    await page.getByTestId('nav-inbox').click();
    await expect(page).toHaveURL(/\/inbox$/);
    await page.getByTestId('nav-chat').click();
    await expect(page).toHaveURL(/\/chat\//);

    await page.getByTestId('sign-out').click();
    await expect(page).toHaveURL(/\/sign-in/);
    await page.goto('/audit');
    await expect(page).toHaveURL(/\/sign-in\?next=%2Faudit/);
    await alex.close();
  });

  test('a reviewer has Inbox but no Audit; an end user has neither, and Sign out on mobile', async ({ browser, page }) => {
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const reviewer = await rita.newPage();
    await reviewer.goto('/inbox');
    await expect(reviewer.getByTestId('nav-chat')).toBeVisible();
    await expect(reviewer.getByTestId('nav-audit')).toHaveCount(0);
    await reviewer.goto('/');
    await expect(reviewer.getByTestId('nav-inbox')).toBeVisible();
    await rita.close();

    await page.setViewportSize(MOBILE);
    await page.goto('/');
    await expect(page.getByTestId('chat-agent')).toBeVisible();
    await expect(page.getByTestId('nav-inbox')).toHaveCount(0);
    await expect(page.getByTestId('nav-audit')).toHaveCount(0);
    await expect(page.getByTestId('sign-out')).toBeVisible();
  });

  test('the audit log at 390 px: no sideways scrolling, each decision opens to its arguments', async ({ browser, request }) => {
    const ids = { threadId: `nav-${crypto.randomUUID()}`, resourceId: 'user-ada' };
    await request.post('/api/agents/ops-agent/generate', { data: { messages: 'delete record rec-45', ...ids } });
    const declined = await request.post('/api/agents/ops-agent/send-tool-approval', {
      data: { ...ids, approved: false, reason: 'a long reason that has to wrap on a narrow phone screen instead of widening the page' },
    });
    expect(declined.status()).toBe(200);
    const { toolCallId } = await declined.json();

    const alex = await contextAs(browser, ACCOUNTS.alex);
    const page = await alex.newPage();
    await page.setViewportSize(MOBILE);
    await page.goto('/audit');
    const item = page.locator(`[data-testid="audit-item"][data-tool-call-id="${toolCallId}"]`);
    await expect(item).toBeVisible();
    await expect(item).toContainText('Declined');
    await expect(item).toContainText('a long reason');
    await expect(page.getByTestId('audit-row').first()).toBeHidden();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);

    // A disclosure button: keyboard and touch open it.
    const toggle = item.getByTestId('audit-toggle');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await expect(item.getByRole('table', { name: 'Arguments the decider saw' })).toContainText('rec-45');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await screenshotBoth(page, 'audit-item-open');
    await alex.close();
  });
});

test.describe('first run', () => {
  test('on a database without any account the sign-in page says how the first admin is made; once an account exists it does not; it lists only demo accounts that exist', async ({ browser }) => {
    // A second server on a database of its own, migrated but never seeded: what `npm start` leaves.
    const url = new URL(E2E_DATABASE_URL);
    url.pathname = '/countersign_first_run';
    const admin = new pg.Client({ connectionString: E2E_DATABASE_URL });
    await admin.connect();
    await admin.query('DROP DATABASE IF EXISTS countersign_first_run WITH (FORCE)');
    await admin.query('CREATE DATABASE countersign_first_run');
    await migrate(url.toString());
    const server = await startServer({ port: extraPort(1), env: { DATABASE_URL: url.toString(), COUNTERSIGN_SHOW_DEMO_ACCOUNTS: 'true' } });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.setViewportSize(DESKTOP);
      await page.goto(`${server.url}/sign-in`);
      await expect(page.getByTestId('no-accounts')).toContainText('No account exists yet');
      await expect(page.getByTestId('no-accounts')).toContainText('npm run admin:create');
      // Demo accounts are listed only where they exist: none here.
      await expect(page.getByRole('region', { name: 'Demo accounts' })).toHaveCount(0);
      await checkAccessible(page, 'sign-in-no-accounts');
      await page.setViewportSize(MOBILE);
      await screenshotBoth(page, 'sign-in-no-accounts');

      const fresh = new pg.Client({ connectionString: url.toString() });
      await fresh.connect();
      await fresh.query(`INSERT INTO users (id, name, email, email_verified, role) VALUES ('first', 'First Admin', 'first@example.com', true, 'admin')`);
      // A real account holding a demo email (the seed then skips that demo account), and one demo account.
      await fresh.query(`INSERT INTO users (id, name, email, email_verified, role) VALUES ('real-alex', 'Real Alex', 'alex@example.com', true, 'admin')`);
      await fresh.query(`INSERT INTO users (id, name, email, email_verified, role) VALUES ('user-ada', 'Ada', 'ada@example.com', true, 'user')`);
      await fresh.end();
      await page.reload();
      await expect(page.getByTestId('sign-in-submit')).toBeVisible();
      await expect(page.getByTestId('no-accounts')).toHaveCount(0);
      const demo = page.getByRole('region', { name: 'Demo accounts' });
      await expect(demo).toContainText('ada@example.com');
      await expect(demo).not.toContainText('alex@example.com');
      await expect(demo.getByRole('listitem')).toHaveCount(1);
    } finally {
      await context.close();
      await server.kill();
      await admin.query('DROP DATABASE IF EXISTS countersign_first_run WITH (FORCE)');
      await admin.end();
    }
  });
});
