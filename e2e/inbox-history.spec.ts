import type { Browser } from '@playwright/test';
import { ACCOUNTS, contextAs, expect, test, type Db } from './support';
import { checkAccessible, DESKTOP, MOBILE, screenshotBoth } from './ui';

// The inbox's Done tab (decided calls: who, when, outcome, reason; decisions are final) and the
// server-side search over waiting and decided calls, kept in the URL.

/** A fresh end user with a unique name, signed in in a browser context of their own. */
async function requester(browser: Browser, db: Db, name: string) {
  const account = await db.createAccount({ name });
  const context = await contextAs(browser, account.email);
  return { ...account, name, context };
}

/** Starts a run as `who` with one message; returns the thread and its pending calls, oldest first. */
async function ask(who: { id: string; context: Awaited<ReturnType<typeof contextAs>> }, db: Db, messages: string) {
  const threadId = `hist-${crypto.randomUUID()}`;
  const started = await who.context.request.post('/api/agents/ops-agent/generate', { data: { messages, threadId, resourceId: who.id } });
  expect(started.status()).toBe(200);
  const calls = await db.query<{ run_id: string; tool_call_id: string }>(
    `SELECT root_run_id AS run_id, root_tool_call_id AS tool_call_id FROM pending_tool_calls WHERE thread_id = $1 AND status = 'pending' ORDER BY seq`,
    [threadId],
  );
  return { threadId, calls };
}

const email = (subject: string) => `/tool send-email ${JSON.stringify({ to: 'ops@example.com', subject, body: 'Numbers attached.' })}`;

test.describe('inbox history and search', () => {
  // Many steps, each a page load, and axe in two colour schemes: more than the default minute on a busy machine.
  test.setTimeout(180_000);

  test('Done tab: decided calls with who, when, outcome and reason; filters in the URL; the declined thread shows the reason', async ({ browser, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const grace = await requester(browser, db, `Grace ${tag}`);
    const declined = await ask(grace, db, email(`Budget ${tag}`));
    const approved = await ask(grace, db, email(`Minutes ${tag}`));
    const reason = `wait for the board meeting ${tag}`;

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const sam = await contextAs(browser, ACCOUNTS.sam);
    const decline = await rita.request.post(`/api/runs/${declined.calls[0].run_id}/tool-calls/${declined.calls[0].tool_call_id}/decision`, {
      data: { approved: false, reason },
    });
    expect(decline.status()).toBe(200);
    await decline.body();
    const approve = await sam.request.post(`/api/runs/${approved.calls[0].run_id}/tool-calls/${approved.calls[0].tool_call_id}/decision`, {
      data: { approved: true },
    });
    expect(approve.status()).toBe(200);
    await approve.body();

    const page = await rita.newPage();
    await page.setViewportSize(DESKTOP);
    await page.goto('/inbox');
    await page.getByTestId('inbox-list-done').click();
    await expect(page).toHaveURL(/\/inbox\?view=done$/);
    await expect(page.getByTestId('inbox-list-done')).toHaveAttribute('aria-current', 'page');
    await expect(page.getByTestId('done-final')).toContainText('cannot be undone');

    const declinedRow = page.locator(`[data-testid="done-row"][data-tool-call-id="${declined.calls[0].tool_call_id}"]`);
    await expect(declinedRow.getByTestId('done-outcome')).toHaveText('Declined');
    await expect(declinedRow.getByTestId('done-who')).toContainText('Declined by Rita');
    await expect(declinedRow.getByTestId('done-who')).toContainText(`Grace ${tag}`);
    await expect(declinedRow.getByTestId('done-reason')).toContainText(reason);
    await expect(declinedRow.locator('time')).toHaveAttribute('title', /\d{4}, \d{2}:\d{2}:\d{2}/);
    const approvedRow = page.locator(`[data-testid="done-row"][data-tool-call-id="${approved.calls[0].tool_call_id}"]`);
    await expect(approvedRow.getByTestId('done-outcome')).toHaveText('Approved');
    await expect(approvedRow.getByTestId('done-who')).toContainText('Approved by Sam');

    // Filter by requester (by email, part of it) and outcome: the URL holds the filter.
    await page.getByTestId('inbox-filters-toggle').click();
    await expect(page.getByTestId('inbox-filters-toggle')).toHaveAttribute('aria-expanded', 'true');
    await checkAccessible(page, 'inbox-done-filters');
    await page.getByRole('textbox', { name: 'Requester', exact: true }).fill(grace.email.toUpperCase().slice(0, 20));
    await page.getByLabel('Outcome', { exact: true }).selectOption('decline');
    await page.getByTestId('inbox-filters-apply').click();
    await expect(page).toHaveURL(/view=done/);
    await expect(page).toHaveURL(/kind=decline/);
    await expect(page).toHaveURL(/requester=/);
    await expect(page.getByTestId('done-row')).toHaveCount(1);
    await expect(page.getByTestId('done-row')).toHaveAttribute('data-tool-call-id', declined.calls[0].tool_call_id);
    await expect(page.getByTestId('inbox-filters-summary')).toContainText('outcome Declined');

    // Reload and a shared link keep it.
    await page.reload();
    await expect(page.getByTestId('done-row')).toHaveCount(1);
    const shared = await (await contextAs(browser, ACCOUNTS.sam)).newPage();
    await shared.goto(page.url());
    await expect(shared.getByTestId('done-row')).toHaveCount(1);
    await expect(shared.getByTestId('done-reason')).toContainText(reason);
    await shared.context().close();

    // Who decided, by name: Sam approved the other one.
    await page.goto(`/inbox?view=done&requester=${encodeURIComponent(`Grace ${tag}`)}&person=sam`);
    await expect(page.getByTestId('done-row')).toHaveCount(1);
    await expect(page.getByTestId('done-row')).toHaveAttribute('data-tool-call-id', approved.calls[0].tool_call_id);
    await checkAccessible(page, 'inbox-done');
    // Date range: nothing was decided before 2020.
    await page.goto(`/inbox?view=done&requester=${encodeURIComponent(`Grace ${tag}`)}&to=2020-01-01`);
    await expect(page.getByTestId('done-empty')).toContainText('No decided calls match these filters');
    await page.goto(`/inbox?view=done&requester=${encodeURIComponent(`Grace ${tag}`)}&from=yesterday`);
    await expect(page.getByTestId('inbox-filters-error')).toBeVisible();

    await page.goto(`/inbox?view=done&requester=${encodeURIComponent(`Grace ${tag}`)}`);
    await expect(page.getByTestId('done-row')).toHaveCount(2);
    await page.setViewportSize(MOBILE);
    await checkAccessible(page, 'inbox-done');
    await page.getByTestId('inbox-filters-toggle').click();
    await screenshotBoth(page, 'inbox-done-filters');

    // The requester's chat shows who declined and why.
    const chat = await grace.context.newPage();
    await chat.goto(`/chat/${declined.threadId}`);
    const card = chat.locator('[data-testid="approval-card"][data-tool-name="send-email"]');
    await expect(card).toHaveAttribute('data-state', 'declined');
    await expect(card.getByTestId('approval-outcome')).toContainText('Declined by Rita');
    await expect(card).toContainText(reason);

    await Promise.all([rita.close(), sam.close(), grace.context.close()]);
  });

  test('search reaches calls beyond the loaded page: requester, tool and date range on the waiting list', async ({ browser, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const grace = await requester(browser, db, `Grace ${tag}`);
    const linus = await requester(browser, db, `Linus ${tag}`);
    const early = await ask(grace, db, email(`Early ${tag}`));
    // 51 newer calls in one step: Grace's call is no longer on the first page (50 rows).
    await ask(linus, db, Array.from({ length: 51 }, (_, n) => email(`Bulk ${n} ${tag}`)).join('\n'));

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const page = await rita.newPage();
    await page.setViewportSize(DESKTOP);
    await page.goto('/inbox');
    await expect(page.getByTestId('inbox-row').first()).toBeVisible();
    await expect(page.locator(`[data-testid="inbox-row"][data-tool-call-id="${early.calls[0].tool_call_id}"]`)).toHaveCount(0);
    // The search box searches on the server too (Enter), beyond the loaded page; an empty search shows every call again.
    await page.locator('#inbox-search').fill(`Grace ${tag}`);
    await page.locator('#inbox-search').press('Enter');
    await expect(page.getByTestId('inbox-row')).toHaveCount(1);
    await expect(page.getByTestId('inbox-row')).toHaveAttribute('data-tool-call-id', early.calls[0].tool_call_id);
    await page.locator('#inbox-search').fill('');
    await page.locator('#inbox-search').press('Enter');
    await expect(page).not.toHaveURL(/[?&]q=/);
    await expect(page.getByTestId('inbox-row')).toHaveCount(50);

    await page.getByTestId('inbox-filters-toggle').click();
    await page.getByRole('textbox', { name: 'Requester', exact: true }).fill(`grace ${tag}`);
    await page.getByLabel('Tool', { exact: true }).selectOption('send-email');
    await page.getByTestId('inbox-filters-apply').click();
    await expect(page).toHaveURL(/toolName=send-email/);
    await expect(page.getByTestId('inbox-row')).toHaveCount(1);
    await expect(page.getByTestId('inbox-row')).toHaveAttribute('data-tool-call-id', early.calls[0].tool_call_id);
    await checkAccessible(page, 'inbox-filtered');
    await page.reload();
    await expect(page.getByTestId('inbox-row')).toHaveCount(1);
    await expect(page.getByTestId('inbox-filters-summary')).toContainText(`requester grace ${tag}`);
    await page.setViewportSize(MOBILE);
    await screenshotBoth(page, 'inbox-filtered');

    // A tool none of them used, and a date range before any of them: nothing, said plainly.
    await page.goto(`/inbox?requester=${encodeURIComponent(`Linus ${tag}`)}&toolName=delete-record`);
    await expect(page.getByTestId('inbox-empty')).toContainText('No calls match these filters');
    await page.goto(`/inbox?requester=${encodeURIComponent(`Linus ${tag}`)}&to=2020-01-01`);
    await expect(page.getByTestId('inbox-empty')).toBeVisible();
    // All 51 of Linus's calls, over two pages, the second reached with the filter kept.
    await page.goto(`/inbox?requester=${encodeURIComponent(`Linus ${tag}`)}`);
    await expect(page.getByTestId('inbox-row')).toHaveCount(50);
    await page.getByTestId('inbox-older').click();
    await expect(page).toHaveURL(/requester=/);
    await expect(page.getByTestId('inbox-row')).toHaveCount(1);

    // The API answers the same filters.
    const api = await rita.request.get(`/api/inbox?requester=${encodeURIComponent(grace.email)}`);
    expect((await api.json()).items.map((item: { toolCallId: string }) => item.toolCallId)).toEqual([early.calls[0].tool_call_id]);
    const bad = await rita.request.get('/api/inbox?from=last-week');
    expect(bad.status()).toBe(400);
    expect((await bad.json()).error.code).toBe('BAD_REQUEST');

    await Promise.all([rita.close(), grace.context.close(), linus.context.close()]);
  });
});
