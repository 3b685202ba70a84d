import { ACCOUNTS, contextAs, expect, test } from './support';
import { checkAccessible, DESKTOP, InboxPage, MOBILE, screenshotBoth } from './ui';

// axe-core on every screen and state, in light and dark mode (the app follows the system setting):
// no serious or critical violation. Each check also saves a screenshot of what it looked at; the
// phone-sized screenshots of the same screens are saved alongside.

test.describe('accessibility (axe, light and dark)', () => {
  test('the check itself fails on a serious violation, even one that only dark mode has', async ({ page }) => {
    // Grey on black in dark mode only: a contrast ratio of about 1.7, where 4.5 is needed.
    await page.setContent(
      '<!doctype html><html lang="en"><head><title>Check</title><style>@media (prefers-color-scheme: dark) { p { color: #333; background: #000 } }</style></head><body><main><h1>Check</h1><p>Dim text</p></main></body></html>',
    );
    await expect(checkAccessible(page, 'axe-self-check')).rejects.toThrow(/axe on axe-self-check \(dark, 1280px\)[\s\S]*color-contrast/);
  });

  test('sign-in', async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setViewportSize(DESKTOP);
    await page.goto('/sign-in');
    await expect(page.getByTestId('sign-in-submit')).toBeVisible();
    await checkAccessible(page, 'sign-in');
    await page.setViewportSize(MOBILE);
    await screenshotBoth(page, 'sign-in');
    await context.close();
  });

  test('chat: approval pending, approved, declined, question pending, answered', async ({ chat, page, db }) => {
    expect(await db.recordExists('rec-42')).toBe(true);
    await page.setViewportSize(DESKTOP);
    await chat.open();
    await chat.send('delete record rec-42');
    const first = chat.approvalCard('delete-record');
    await expect(first).toHaveAttribute('data-state', 'pending');
    await checkAccessible(page, 'chat-approval-pending');

    await first.getByTestId('decline-button').click();
    await expect(first.getByTestId('decline-reason')).toBeFocused();
    await checkAccessible(page, 'chat-decline-form');
    await first.getByTestId('decline-reason').press('Escape');

    await first.getByTestId('approve-button').click();
    await expect(first).toHaveAttribute('data-state', 'approved');
    await expect(chat.lastAssistant()).toContainText('was deleted');

    await chat.send('delete record rec-43');
    const second = chat.approvalCard('delete-record');
    await expect(second).toHaveAttribute('data-state', 'pending');
    await second.getByTestId('decline-button').click();
    await second.getByTestId('decline-reason').fill('not this one');
    // Ctrl+Enter in the reason declines, as the button does.
    await second.getByTestId('decline-reason').press('Control+Enter');
    await expect(second).toHaveAttribute('data-state', 'declined');
    await expect(chat.lastAssistant()).toContainText('not this one');

    // A call only a reviewer may approve: the card and the "waiting for a reviewer" notice.
    await chat.send('refund order ord-1042 for 250');
    await expect(chat.approvalCard('issue-refund')).toHaveAttribute('data-state', 'pending');
    await expect(page.getByTestId('chat-waiting')).toBeVisible();

    await chat.send("what's the weather?");
    const question = chat.questionCard('get-weather');
    await expect(question).toHaveAttribute('data-state', 'pending');
    // Approved, declined and reviewer-only cards above, a question waiting below.
    await checkAccessible(page, 'chat-decided-and-question');

    await question.getByLabel('city').fill('Paris');
    await question.getByTestId('question-submit').click();
    await expect(question).toHaveAttribute('data-state', 'answered');
    await expect(chat.lastAssistant()).toContainText('Weather in Paris');
    await checkAccessible(page, 'chat-answered');

    await page.setViewportSize(MOBILE);
    await screenshotBoth(page, 'chat-answered');
  });

  test('inbox: list, detail, edit form, decline form', async ({ browser, request, db }) => {
    // Axe in two schemes on nine states at two widths: more than the default 90 s on a busy machine.
    test.setTimeout(240_000);
    const threadId = `a11y-${crypto.randomUUID()}`;
    const started = await request.post('/api/agents/ops-agent/generate', {
      data: { messages: '/tool send-email {"to":"ops@example.com","subject":"Quarterly numbers","body":"Attached."}', threadId, resourceId: 'user-ada' },
    });
    expect(started.status()).toBe(200);
    const [pending] = await db.query<{ tool_call_id: string }>(
      `SELECT tool_call_id FROM pending_tool_calls WHERE thread_id = $1 AND status = 'pending'`,
      [threadId],
    );

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const page = await rita.newPage();
    const inbox = new InboxPage(page);
    await page.setViewportSize(DESKTOP);
    await inbox.open();
    await expect(inbox.row(pending.tool_call_id)).toBeVisible();
    await checkAccessible(page, 'inbox-list');

    await inbox.select(pending.tool_call_id);
    await expect(page.getByTestId('inbox-approve')).toBeVisible();
    await checkAccessible(page, 'inbox-detail');

    await page.getByTestId('inbox-edit').click();
    await expect(page.getByTestId('inbox-edit-submit')).toBeVisible();
    await checkAccessible(page, 'inbox-edit');
    await page.getByRole('button', { name: 'Cancel' }).click();

    // Every pointer target is at least 24×24 px (WCAG 2.5.8; axe's target-size), the row checkboxes included.
    const box = await inbox.row(pending.tool_call_id).getByTestId('row-select').boundingBox();
    expect(box!.width).toBeGreaterThanOrEqual(24);
    expect(box!.height).toBeGreaterThanOrEqual(24);

    await page.getByTestId('inbox-decline').click();
    await expect(page.getByTestId('inbox-decline-reason')).toBeFocused();
    await checkAccessible(page, 'inbox-decline');
    await page.getByTestId('inbox-decline-reason').press('Escape');

    // The same components below 1024 px (the detail opens under its row); the phone-sized
    // navigation is checked on the audit page.
    // The open forms at phone width too, and the filters panel and the bulk bar with its decline form.
    await page.setViewportSize(MOBILE);
    await expect(page.getByTestId('inbox-approve')).toBeVisible();
    await screenshotBoth(page, 'inbox-detail');
    await page.getByTestId('inbox-edit').click();
    await expect(page.getByTestId('inbox-edit-submit')).toBeVisible();
    await checkAccessible(page, 'inbox-edit');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('inbox-decline').click();
    await expect(page.getByTestId('inbox-decline-reason')).toBeFocused();
    await checkAccessible(page, 'inbox-decline');
    await page.getByTestId('inbox-decline-reason').press('Escape');

    await page.setViewportSize(DESKTOP);
    await page.getByTestId('inbox-filters-toggle').click();
    await expect(page.getByTestId('inbox-filters-apply')).toBeVisible();
    await checkAccessible(page, 'inbox-filters-open');
    await page.getByTestId('inbox-filters-toggle').click();
    await inbox.row(pending.tool_call_id).getByTestId('row-select').click();
    await page.getByTestId('bulk-decline').click();
    await expect(page.getByTestId('bulk-decline-reason')).toBeFocused();
    await checkAccessible(page, 'inbox-bulk-decline');
    await rita.close();
  });

  test('API reference (/docs/api), light and dark, with a group open', async ({ page }) => {
    // Axe over Scalar's whole reference, four times: more than the default 90 s on a busy machine.
    test.setTimeout(300_000);
    // At desktop width (at phone width Scalar hides its sidebar behind "Open Menu").
    await page.setViewportSize(DESKTOP);
    await page.goto('/docs/api');
    // Scalar renders the document after it loads; then a group opened, with its operations.
    await expect(page.getByText('Countersign API').first()).toBeVisible();
    await expect(page.getByRole('link', { name: 'Inbox', exact: true }).first()).toBeAttached();
    await checkAccessible(page, 'docs-api');
    await page.getByRole('button', { name: 'Open Group - Agents' }).first().click();
    await expect(page.getByText('Approve a waiting call; streams the continuation').first()).toBeVisible();
    await checkAccessible(page, 'docs-api-group-open');
  });

  test('audit, and the not-allowed and not-found pages', async ({ browser, page, request }) => {
    // At least one decision to show: Ada declines her own call.
    const ids = { threadId: `a11y-${crypto.randomUUID()}`, resourceId: 'user-ada' };
    await request.post('/api/agents/ops-agent/generate', { data: { messages: 'delete record rec-44', ...ids } });
    const declined = await request.post('/api/agents/ops-agent/send-tool-approval', { data: { ...ids, approved: false, reason: 'kept for now' } });
    expect(declined.status()).toBe(200);

    const alex = await contextAs(browser, ACCOUNTS.alex);
    const admin = await alex.newPage();
    for (const size of [DESKTOP, MOBILE]) {
      await admin.setViewportSize(size);
      await admin.goto('/audit');
      await expect(admin.getByRole('heading', { name: 'Audit' })).toBeVisible();
      await checkAccessible(admin, 'audit');
    }
    await admin.goto('/no-such-page');
    await expect(admin.getByTestId('not-found')).toBeVisible();
    await checkAccessible(admin, 'not-found');
    await alex.close();

    await page.setViewportSize(DESKTOP);
    await page.goto('/audit');
    await expect(page).toHaveURL(/\/forbidden/);
    await checkAccessible(page, 'forbidden');
  });
});
