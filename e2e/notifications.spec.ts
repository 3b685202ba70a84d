import type { Browser } from '@playwright/test';
import { startSmtpReceiver } from '../test/support/smtp';
import { launchFullChromium } from './browsers';
import { extraPort } from './config';
import { startServer, type ExtraServer } from './servers';
import { ACCOUNTS, contextAs, expect, test } from './support';
import { checkAccessible, DESKTOP, MOBILE } from './ui';

// Notifications for reviewers: the count waiting for them (tab title, badge), a browser
// notification when they opted in, and email over real SMTP whose deep link opens the call.

/** A refund only a reviewer may approve, asked by `request`'s user (Ada by default). */
async function askRefund(request: import('@playwright/test').APIRequestContext, amount: number, base = '') {
  const threadId = `notify-${crypto.randomUUID()}`;
  const response = await request.post(`${base}/api/agents/ops-agent/generate`, {
    data: { messages: `/tool issue-refund {"orderId":"ord-1042","amount":${amount}}`, threadId, resourceId: 'user-ada' },
  });
  expect(response.status()).toBe(200);
  expect((await response.json()).finishReason).toBe('suspended');
  return threadId;
}

/** A headless shell (the suite's usual browser) always denies notifications: this test runs a full Chromium. */
const withFullChromium = test.extend<{ fullChromium: Browser }>({
  fullChromium: async ({}, use) => {
    const browser = await launchFullChromium();
    await use(browser);
    await browser.close();
  },
});

test.describe('reviewer notifications', () => {
  withFullChromium('tab title and badge count what waits for me; an opted-in browser notification announces a new call', async ({ fullChromium: browser, request }) => {
    const rita = await contextAs(browser, ACCOUNTS.rita);
    await rita.grantPermissions(['notifications']);
    // Record what the page shows through the Notification API (the real one still runs).
    await rita.addInitScript(() => {
      const Real = window.Notification;
      const shown: { title: string; body?: string }[] = [];
      (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
      class Recording extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          shown.push({ title, body: options?.body });
        }
        static get permission() {
          return Real.permission;
        }
        static requestPermission = Real.requestPermission.bind(Real);
      }
      window.Notification = Recording as typeof Notification;
    });
    const page = await rita.newPage();
    await page.setViewportSize(DESKTOP);
    await page.goto('/inbox');

    const countForMe = async () => (await (await rita.request.get('/api/inbox/count')).json()) as { count: number; capped: boolean };
    const before = await countForMe();
    expect(before.capped).toBe(false);
    const badge = page.getByTestId('nav-inbox').getByTestId('waiting-badge');
    if (before.count > 0) {
      await expect(badge).toContainText(String(before.count));
      await expect(page).toHaveTitle(`(${before.count}) Inbox · Countersign`);
    }

    const toggle = page.getByTestId('notifications-toggle');
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
    await expect(toggle).toContainText('Notifications on');
    await checkAccessible(page, 'inbox-notifications-on');

    // Ada asks for something only a reviewer may approve.
    await askRefund(request, 120);
    await expect(page).toHaveTitle(`(${before.count + 1}) Inbox · Countersign`, { timeout: 20_000 });
    await expect(badge).toContainText(String(before.count + 1));
    expect((await countForMe()).count).toBe(before.count + 1);
    const shown = () => page.evaluate(() => (window as unknown as { shownNotifications: { title: string; body?: string }[] }).shownNotifications);
    await expect.poll(shown, { timeout: 20_000 }).toEqual([{ title: `New in your inbox (${before.count + 1} waiting)`, body: 'issue-refund waits for a decision.' }]);

    // The badge is on every page with the navigation, also on a phone.
    await page.setViewportSize(MOBILE);
    await page.goto('/');
    await expect(page.getByTestId('nav-inbox').getByTestId('waiting-badge')).toContainText(String(before.count + 1));
    await expect(page).toHaveTitle(new RegExp(`^\\(${before.count + 1}\\) `));

    // Turned off: a new call raises no notification.
    await page.goto('/inbox');
    await page.getByTestId('notifications-toggle').click();
    await expect(page.getByTestId('notifications-toggle')).toHaveAttribute('aria-pressed', 'false');
    await askRefund(request, 130);
    await expect(page).toHaveTitle(`(${before.count + 2}) Inbox · Countersign`, { timeout: 20_000 });
    expect(await shown()).toEqual([]);
    await rita.close();
  });

  test('email: a call that needs a reviewer is mailed over SMTP without its sensitive values, and the link opens it in the inbox', async ({ browser, request, db }) => {
    const smtp = await startSmtpReceiver();
    const { port, received } = smtp;
    const appUrl = `http://127.0.0.1:${extraPort(7)}`;
    let server: ExtraServer | undefined;
    try {
      server = await startServer({
        port: extraPort(7),
        env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Countersign <inbox@countersign.test>', APP_URL: appUrl },
      });
      const amount = 271.83;
      await askRefund(request, amount, server.url);
      await expect.poll(() => received.length, { timeout: 20_000 }).toBe(1);
      const mail = received[0];
      expect(mail.from?.value).toEqual([{ name: 'Countersign', address: 'inbox@countersign.test' }]);
      // One message to every reviewer as Bcc: the SMTP envelope names them, no header does.
      const to = [...mail.envelopeTo];
      const headers = mail.headerLines.map((header) => header.line).join('\n');
      // Every active reviewer but the requester (the suite creates reviewers of its own besides Rita and
      // Sam, and deactivates some: admin-users.spec.ts).
      const reviewers = await db.query<{ email: string }>(`SELECT email FROM users WHERE role = 'reviewer' AND banned IS NOT TRUE AND id <> 'user-ada' ORDER BY email`);
      expect(to.sort()).toEqual(reviewers.map((row) => row.email).sort());
      expect(to).toEqual(expect.arrayContaining(['rita@example.com', 'sam@example.com']));
      expect(to).not.toContain('ada@example.com');
      for (const { email } of reviewers) expect(headers).not.toContain(email);
      expect(mail.subject).toBe('Approval needed: Refunds ••• on order ord-1042');
      expect(`${mail.subject}\n${mail.text}`).not.toMatch(/271[.,]83|\$271/); // a bare 271 could be the milliseconds of a timestamp
      expect(mail.text).toContain('Asked by: Ada');
      const link = mail.text?.match(/Open it in the inbox: (\S+)/)?.[1];
      expect(link).toMatch(new RegExp(`^${appUrl}/inbox\\?call=`));

      const rita = await contextAs(browser, ACCOUNTS.rita);
      const page = await rita.newPage();
      await page.goto(link!);
      const selected = page.locator('[data-testid="inbox-row"][data-selected]');
      await expect(selected).toHaveCount(1);
      await expect(selected).toHaveAttribute('data-tool-name', 'issue-refund');
      await expect(selected.locator('button').first()).toBeFocused();
      // The inbox, behind sign-in, shows the amount the email left out.
      await expect(page.getByTestId('inbox-approve')).toBeVisible();
      await expect(selected).toContainText('271.83');
      await rita.close();
    } finally {
      await server?.kill();
      await smtp.close();
    }
  });

  test('without SMTP_URL the mail is kept in the dev mailbox, which only admins open', async ({ browser, request }) => {
    await askRefund(request, 199.99);
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const page = await alex.newPage();
    await page.setViewportSize(DESKTOP);
    await page.goto('/dev/mailbox');
    const first = page.getByTestId('dev-mail').first();
    await expect(first).toContainText('Approval needed: Refunds ••• on order ord-1042');
    await expect(first).toContainText('To undisclosed recipients');
    await expect(first).toContainText(/Bcc .*rita@example\.com/);
    await expect(first).not.toContainText('199.99');
    await checkAccessible(page, 'dev-mailbox');
    await alex.close();

    const ritaPage = await (await contextAs(browser, ACCOUNTS.rita)).newPage();
    await ritaPage.goto('/dev/mailbox');
    await expect(ritaPage.getByTestId('dev-mail')).toHaveCount(0);
    await ritaPage.context().close();
  });
});
