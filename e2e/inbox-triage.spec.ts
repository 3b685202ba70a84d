import type { APIRequestContext } from '@playwright/test';
import { ACCOUNTS, contextAs, expect, test, type Db } from './support';
import { checkAccessible, DESKTOP, InboxPage, MOBILE, reviewerInbox, screenshotBoth } from './ui';

// These flows drive two or three browsers each; on a busy 2-core machine they need more than the default minute.
test.describe.configure({ timeout: 240_000 });

// The reviewer working through calls: bulk decisions, the keyboard, and the edit form built from the
// tool's schema with its diff. (The detail's context, assignment and notes: inbox-review.spec.ts.)

/**
 * Ada asks for `count` emails, each a call waiting in a thread of its own, subjects "<subject> 0",
 * "<subject> 1", …: their pending rows, in that order.
 */
async function askForEmails(request: APIRequestContext, db: Db, subject: string, count: number, body = 'Hi.') {
  const calls: Awaited<ReturnType<Db['pendingIn']>> = [];
  for (let n = 0; n < count; n++) {
    const threadId = `email-${crypto.randomUUID()}`;
    const started = await request.post('/api/agents/ops-agent/generate', {
      data: { messages: `/tool send-email ${JSON.stringify({ to: 'ops@example.com', subject: `${subject} ${n}`, body })}`, threadId, resourceId: 'user-ada' },
    });
    expect(started.status()).toBe(200);
    calls.push((await db.pendingIn(threadId, 'send-email'))[0]);
  }
  return calls;
}

test.describe('inbox: bulk decisions', () => {
  test('checkboxes, shift-click and x select; approve many; a conflict on one names the winner and undoes nothing; decline many with one reason', async ({
    browser,
    request,
    db,
  }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const calls = await askForEmails(request, db, `Bulk ${tag}`, 4, 'Numbers attached.');

    const { context: rita, page, inbox } = await reviewerInbox(browser, ACCOUNTS.rita);
    // Newest first: 3, 2, 1, 0. Click 3, shift-click 1: the range 3..1.
    await inbox.row(calls[3].root_tool_call_id).getByTestId('row-select').click();
    await inbox.row(calls[1].root_tool_call_id).getByTestId('row-select').click({ modifiers: ['Shift'] });
    await expect(page.getByTestId('bulk-count')).toHaveText('3 selected');
    for (const index of [3, 2, 1]) await expect(inbox.row(calls[index].root_tool_call_id)).toHaveAttribute('data-checked', 'true');
    await expect(inbox.row(calls[0].root_tool_call_id)).not.toHaveAttribute('data-checked', 'true');
    // `x` toggles the current row.
    await inbox.select(calls[0].root_tool_call_id);
    await page.keyboard.press('x');
    await expect(page.getByTestId('bulk-count')).toHaveText('4 selected');
    await page.keyboard.press('x');
    await expect(page.getByTestId('bulk-count')).toHaveText('3 selected');
    await page.keyboard.press('x');
    await expect(page.getByTestId('bulk-count')).toHaveText('4 selected');
    await checkAccessible(page, 'inbox-bulk-selection');
    await page.setViewportSize(MOBILE);
    await screenshotBoth(page, 'inbox-bulk-selection');
    await page.setViewportSize(DESKTOP);

    // Sam approves one of them first; Rita's list drops it live, her selection keeps it.
    const sam = await contextAs(browser, ACCOUNTS.sam);
    const first = await sam.request.post(`/api/runs/${calls[2].root_run_id}/tool-calls/${encodeURIComponent(calls[2].root_tool_call_id)}/decision`, {
      data: { approved: true },
    });
    expect(first.status()).toBe(200);
    await first.body();
    await expect(inbox.row(calls[2].root_tool_call_id)).toHaveCount(0);
    await expect(page.getByTestId('bulk-count')).toHaveText('4 selected');

    await page.getByTestId('bulk-approve').click();
    const outcomes = page.getByTestId('bulk-outcome');
    await expect(outcomes).toHaveCount(4);
    await expect(page.getByTestId('bulk-outcomes')).toContainText('3 of 4 decided');
    const lost = page.locator(`[data-testid="bulk-outcome"][data-pending-call-id="${calls[2].id}"]`);
    await expect(lost).toHaveAttribute('data-ok', 'false');
    await expect(lost).toContainText('Sam (sam@example.com) already approved this');
    await expect(lost).not.toContainText('reviewer-sam');
    for (const index of [0, 1, 3]) {
      await expect(page.locator(`[data-testid="bulk-outcome"][data-pending-call-id="${calls[index].id}"]`)).toHaveAttribute('data-ok', 'true');
    }
    await checkAccessible(page, 'inbox-bulk-outcomes');
    const decided = await db.query<{ id: string; decided_by: string; status: string }>(
      `SELECT id, decided_by, status FROM pending_tool_calls WHERE id = ANY($1) ORDER BY created_at`,
      [calls.map((call) => call.id)],
    );
    expect(decided.map((row) => row.decided_by)).toEqual(['reviewer-rita', 'reviewer-rita', 'reviewer-sam', 'reviewer-rita']);
    // Each approved email was sent exactly once.
    const sent = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_emails WHERE subject LIKE $1`, [`Bulk ${tag} %`]);
    expect(sent[0].n).toBe(4);

    // Decline two at once with one reason.
    const more = await askForEmails(request, db, `Bulk ${tag} again`, 2, 'Numbers attached.');
    await page.reload();
    await inbox.row(more[1].root_tool_call_id).getByTestId('row-select').click();
    await inbox.row(more[0].root_tool_call_id).getByTestId('row-select').click();
    await expect(page.getByTestId('bulk-count')).toHaveText('2 selected');
    await page.getByTestId('bulk-decline').click();
    await page.getByTestId('bulk-decline-reason').fill('Duplicate request');
    await page.getByTestId('bulk-decline-confirm').click();
    await expect(page.getByTestId('bulk-outcomes')).toContainText('2 of 2 decided');
    const declined = await db.query<{ status: string; decision_reason: string }>(
      `SELECT status, decision_reason FROM pending_tool_calls WHERE id = ANY($1)`,
      [more.map((call) => call.id)],
    );
    expect(declined).toEqual([
      { status: 'declined', decision_reason: 'Duplicate request' },
      { status: 'declined', decision_reason: 'Duplicate request' },
    ]);
    await sam.close();
    await rita.close();
  });
});

test.describe('inbox: keyboard', () => {
  test('? lists every shortcut; j/k/arrows move; a approves and focus moves on; d declines; c claims; x selects; digits switch queues', async ({ browser, request, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const calls = await askForEmails(request, db, `Keys ${tag}`, 3);
    const { context: rita, page, inbox } = await reviewerInbox(browser, ACCOUNTS.rita);
    const rowButton = (index: number) => inbox.row(calls[index].root_tool_call_id).locator('button').first();
    // A click first: the keys work once the page is hydrated (rows take the pointer only then).
    await inbox.select(calls[2].root_tool_call_id);
    await expect(inbox.row(calls[2].root_tool_call_id)).toHaveAttribute('data-selected', 'true');

    await page.keyboard.press('?');
    const sheet = page.getByTestId('shortcuts-sheet');
    await expect(sheet).toBeVisible();
    for (const action of ['Next call', 'Approve the open call', 'Decline the open call', 'Send the decline, from its reason', 'Select or unselect the open call', 'Assign the open call to me', 'Withdraw your own request']) {
      await expect(sheet).toContainText(action);
    }
    await checkAccessible(page, 'inbox-shortcuts');
    await page.keyboard.press('Escape');
    await expect(sheet).toHaveCount(0);

    // Newest first: 2, 1, 0.
    await page.keyboard.press('j');
    await expect(rowButton(1)).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(rowButton(0)).toBeFocused();
    await page.keyboard.press('k');
    await expect(rowButton(1)).toBeFocused();
    await page.keyboard.press('ArrowUp');
    await expect(rowButton(2)).toBeFocused();

    // x selects, Esc clears.
    await page.keyboard.press('x');
    await expect(page.getByTestId('bulk-count')).toHaveText('1 selected');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('bulk-count')).toHaveCount(0);
    // Shift+x (the key a keyboard then sends is "X") selects the range from the last one.
    await expect(rowButton(2)).toBeFocused();
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await expect(rowButton(0)).toBeFocused();
    await page.keyboard.press('Shift+X');
    await expect(page.getByTestId('bulk-count')).toHaveText('3 selected');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('bulk-count')).toHaveCount(0);
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await expect(rowButton(2)).toBeFocused();

    // c claims the open call.
    await page.keyboard.press('c');
    await expect(page.getByTestId('assignee')).toHaveText('you');

    // a approves; focus moves to the next call.
    await rowButton(2).focus();
    await page.keyboard.press('a');
    await expect(inbox.row(calls[2].root_tool_call_id)).toHaveCount(0);
    await expect(rowButton(1)).toBeFocused();
    // d opens the reason; Tab reaches Decline.
    await page.keyboard.press('d');
    await expect(page.getByTestId('inbox-decline-reason')).toBeFocused();
    await page.keyboard.type('Not by keyboard today');
    await page.keyboard.press('Tab');
    await expect(page.getByTestId('inbox-decline-confirm')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(inbox.row(calls[1].root_tool_call_id)).toHaveCount(0);
    await expect(rowButton(0)).toBeFocused();
    // e opens the edit form and brings it into view (below the call's context, out of sight before).
    await page.keyboard.press('e');
    await expect(page.getByRole('heading', { name: 'Approve with edits' })).toBeInViewport();
    // Or Ctrl+Enter in the reason declines at once (the hint under it says so).
    await page.keyboard.press('d');
    await expect(page.getByTestId('inbox-decline-reason')).toBeFocused();
    await expect(page.getByText('Ctrl+Enter declines · Esc cancels')).toBeVisible();
    await page.keyboard.type('Declined with Ctrl+Enter');
    await page.keyboard.press('Control+Enter');
    await expect(inbox.row(calls[0].root_tool_call_id)).toHaveCount(0);
    const decided = await db.query<{ status: string; decision_reason: string | null }>(
      `SELECT status, decision_reason FROM pending_tool_calls WHERE id = ANY($1) ORDER BY created_at`,
      [calls.map((call) => call.id)],
    );
    expect(decided.map((row) => row.status)).toEqual(['declined', 'declined', 'completed']);
    expect(decided[1].decision_reason).toBe('Not by keyboard today');
    expect(decided[0].decision_reason).toBe('Declined with Ctrl+Enter');

    // Digits switch queues.
    await page.keyboard.press('2');
    await expect(page).toHaveURL(/queue=unassigned/);
    await page.keyboard.press('4');
    await expect(page).toHaveURL(/queue=requested/);
    await page.keyboard.press('3');
    await expect(page).toHaveURL(/\/inbox$/);
    await rita.close();
  });
});

test.describe('inbox: edit form from the tool’s schema, and the diff', () => {
  test('an edit that needs more than this approval (4900 needs two reviewers) is refused where the reviewer approved, naming the rule; nothing runs', async ({ browser, chat, page, db }) => {
    await page.setViewportSize(DESKTOP);
    const threadId = await chat.open();
    await chat.send('refund order ord-1042 for 250');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    const [call] = await db.pendingIn(threadId, 'issue-refund');

    const { context: rita, page: reviewer, inbox } = await reviewerInbox(browser, ACCOUNTS.rita, call.root_tool_call_id);
    await reviewer.getByTestId('inbox-edit').click();
    await reviewer.getByLabel('amount').fill('4900');
    await reviewer.getByTestId('inbox-edit-submit').click();
    const notice = reviewer.getByTestId('inbox-error');
    await expect(notice).toContainText('2 different reviewers (rule “Very large refunds”)');
    await expect(notice).toContainText('Approve it unchanged, or decline it with a reason');
    // The edit form stays open under the message, the call still waits as it was shown, in the inbox and in Ada's chat.
    await expect(reviewer.getByTestId('inbox-edit-submit')).toBeVisible();
    await expect(inbox.row(call.root_tool_call_id)).toHaveCount(1);
    expect(await db.query(`SELECT status, args FROM pending_tool_calls WHERE id = $1`, [call.id])).toEqual([{ status: 'pending', args: { orderId: 'ord-1042', amount: 250 } }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM decisions WHERE pending_call_id = $1`, [call.id])).toEqual([{ n: 0 }]);
    await expect(card).toHaveAttribute('data-state', 'pending');
    await rita.close();
  });

  test('the form enforces the tool’s limits before sending; the card and the audit show what changed, field by field', async ({ browser, chat, page, db }) => {
    await page.setViewportSize(DESKTOP);
    const threadId = await chat.open();
    await chat.send('refund order ord-2001 for 250');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    const [call] = await db.pendingIn(threadId, 'issue-refund');

    const { context: rita, page: reviewer, inbox } = await reviewerInbox(browser, ACCOUNTS.rita, call.root_tool_call_id);
    await reviewer.getByTestId('inbox-edit').click();
    const amount = reviewer.getByLabel('amount');
    await expect(amount).toHaveValue('250');
    // The tool's schema says amount > 0 and ≤ 100,000: refused in the browser, nothing is sent.
    await amount.fill('-5');
    await reviewer.getByTestId('inbox-edit-submit').click();
    await expect(reviewer.getByText(/must be > 0|greater than 0|exclusiveMinimum/i).first()).toBeVisible();
    await amount.fill('250000');
    await reviewer.getByTestId('inbox-edit-submit').click();
    await expect(reviewer.getByText(/100000|100,000/).first()).toBeVisible();
    expect((await db.query(`SELECT status FROM pending_tool_calls WHERE id = $1`, [call.id]))[0].status).toBe('pending');
    await amount.fill('100');
    await checkAccessible(reviewer, 'inbox-edit-schema-form');
    await reviewer.getByTestId('inbox-edit-submit').click();
    await expect(inbox.row(call.root_tool_call_id)).toHaveCount(0);
    // The reviewer's confirmation names what ran: the edited amount, not the one asked for.
    await expect(reviewer.getByText(/^Approved: /)).toContainText('amount: 100');

    // Ada's card: "Approved with edits" and the field-level diff, not JSON.
    await expect(card).toHaveAttribute('data-state', 'approved');
    const diff = card.getByTestId('args-diff-row');
    await expect(diff).toHaveCount(1);
    await expect(diff).toHaveAttribute('data-path', 'amount');
    await expect(diff.locator('del')).toHaveText('250');
    await expect(diff.locator('ins')).toHaveText('100');
    await expect(card.getByTestId('approval-edited-from')).not.toContainText('{');
    await checkAccessible(page, 'chat-edit-diff');
    await page.setViewportSize(MOBILE);
    await card.scrollIntoViewIfNeeded();
    await screenshotBoth(page, 'chat-edit-diff');

    // The audit shows the same diff.
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const admin = await alex.newPage();
    await admin.setViewportSize(MOBILE);
    await admin.goto('/audit?toolName=issue-refund');
    // This call's entry (at 390 px the audit is a list of items), opened by its toggle.
    const item = admin.locator(`[data-testid="audit-item"][data-tool-call-id="${call.root_tool_call_id}"]`);
    await item.getByTestId('audit-toggle').click();
    const auditDiff = item.getByTestId('args-diff-row');
    await expect(auditDiff).toHaveAttribute('data-path', 'amount');
    await expect(auditDiff.locator('ins')).toHaveText('100');
    await screenshotBoth(admin, 'audit-edit-diff');
    await alex.close();
    await rita.close();
  });
});

test.describe('inbox: the open call', () => {
  test('decided by another reviewer while open, it stays open, marked no longer waiting, with a notice; neither a nor a click can land on the call beside it', async ({ browser, request, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const calls = await askForEmails(request, db, `Open ${tag}`, 2);
    const { context: rita, page, inbox } = await reviewerInbox(browser, ACCOUNTS.rita);
    const [older, newer] = calls.map((call) => call.root_tool_call_id);
    await inbox.select(newer);
    await expect(inbox.row(newer)).toHaveAttribute('data-selected', 'true');

    // Sam declines the call Rita has open; her live list drops it.
    const sam = await contextAs(browser, ACCOUNTS.sam);
    const declined = await sam.request.post(`/api/runs/${calls[1].root_run_id}/tool-calls/${encodeURIComponent(newer)}/decision`, {
      data: { approved: false, reason: `Sam says no ${tag}` },
    });
    expect(declined.status()).toBe(200);
    await declined.body();
    await expect(page.getByTestId('inbox-error')).toContainText('This call left the list while you had it open');
    await expect(inbox.row(newer)).toHaveAttribute('data-selected', 'true');
    await expect(inbox.row(newer).getByTestId('inbox-row-stale')).toHaveText('No longer waiting');
    await expect(page.getByTestId('inbox-approve')).toHaveCount(0);
    // Approve by key does nothing: the call beside it still waits.
    await page.keyboard.press('a');
    await expect(inbox.row(older)).not.toHaveAttribute('data-selected', 'true');
    expect((await db.query('SELECT status FROM pending_tool_calls WHERE root_tool_call_id = $1', [older]))[0].status).toBe('pending');
    await checkAccessible(page, 'inbox-left-while-open');

    // Refresh shows the list as it is; the reviewer then opens the next call herself.
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(inbox.row(newer)).toHaveCount(0);
    await expect(page.getByTestId('inbox-error')).toHaveCount(0);
    await sam.close();
    await rita.close();
  });
});
