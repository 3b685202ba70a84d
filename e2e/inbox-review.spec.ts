import { ACCOUNTS, contextAs, expect, test, type Db } from './support';
import { checkAccessible, DESKTOP, InboxPage, MOBILE, screenshotBoth } from './ui';

// These flows drive two or three browsers each; on a busy 2-core machine they need more than the default minute.
test.describe.configure({ timeout: 240_000 });

// The reviewer's day one (inbox detail): context beside the call, assignment and queues, bulk
// decisions, comments and questions, the edit form with its diff, and the keyboard.

async function pendingIn(db: Db, threadId: string, toolName?: string) {
  const rows = await db.query<{ id: string; run_id: string; tool_call_id: string; root_run_id: string; root_tool_call_id: string }>(
    `SELECT id, run_id, tool_call_id, root_run_id, root_tool_call_id FROM pending_tool_calls
     WHERE thread_id = $1 AND status = 'pending' AND ($2::text IS NULL OR tool_name = $2) ORDER BY created_at`,
    [threadId, toolName ?? null],
  );
  expect(rows.length, `pending calls in ${threadId}`).toBeGreaterThan(0);
  return rows;
}

test.describe('inbox: context beside the call', () => {
  test('the detail shows what the requester asked, the agent’s text, the tool’s facts, and a read-only link to the chat', async ({ browser, page, chat, db }) => {
    await db.query(`UPDATE orders SET refunded = 30 WHERE id = 'ord-1042'`);
    // Ada asks in her chat; the agent says something, then calls the refund tool (reviewer only).
    await page.setViewportSize(DESKTOP);
    const threadId = await chat.open();
    await chat.send('The customer on ord-1042 says the blender arrived broken.');
    await expect(chat.lastAssistant()).toContainText('I can look up customers');
    await chat.send('/say I will refund part of order ord-1042 for the broken blender.\n/tool issue-refund {"orderId":"ord-1042","amount":250}');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    // The card's line comes from the tool's own describe(), on the server.
    await expect(card).toContainText('Refunds $250.00 on order ord-1042');
    const [call] = await pendingIn(db, threadId, 'issue-refund');

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const reviewer = await rita.newPage();
    await reviewer.setViewportSize(DESKTOP);
    const inbox = new InboxPage(reviewer);
    await inbox.open();
    await inbox.select(call.root_tool_call_id);
    const detail = reviewer.getByRole('region', { name: 'Details: issue-refund' });
    await expect(detail.getByRole('heading', { name: 'Refunds $250.00 on order ord-1042' })).toBeVisible();
    await expect(detail.getByTestId('risk-badge')).toHaveText('Medium risk');
    // Business facts the tool looked up in the real tables.
    const facts = detail.getByTestId('context-fields');
    await expect(facts).toContainText('Order total');
    await expect(facts).toContainText('$480.00');
    await expect(facts).toContainText('Already refunded');
    await expect(facts).toContainText('$30.00');
    await expect(facts).toContainText('Left to refund');
    await expect(facts).toContainText('$450.00');
    // The conversation: the requester's messages, then what the agent said before the call.
    const messages = detail.getByTestId('context-messages').locator('li');
    await expect(messages.first()).toHaveAttribute('data-role', 'user');
    await expect(messages.first()).toContainText('the blender arrived broken');
    await expect(messages.last()).toHaveAttribute('data-role', 'assistant');
    await expect(messages.last()).toContainText('I will refund part of order ord-1042');
    await checkAccessible(reviewer, 'inbox-detail-context');
    await reviewer.setViewportSize(MOBILE);
    await expect(detail.getByTestId('context-fields')).toBeVisible();
    await screenshotBoth(reviewer, 'inbox-detail-context');
    await reviewer.setViewportSize(DESKTOP);

    // The whole chat, read-only.
    await detail.getByTestId('context-thread-link').click();
    await expect(reviewer).toHaveURL(new RegExp(`/inbox/threads/${threadId}$`));
    await expect(reviewer.getByTestId('thread-read-only')).toBeVisible();
    await expect(reviewer.getByTestId('transcript-user').first()).toContainText('the blender arrived broken');
    await expect(reviewer.getByTestId('transcript-card')).toContainText('Refunds $250.00 on order ord-1042 — waiting for a decision');
    await expect(reviewer.getByTestId('composer-input')).toHaveCount(0);
    await expect(reviewer.getByRole('button', { name: /approve/i })).toHaveCount(0);
    await checkAccessible(reviewer, 'inbox-thread-read-only');

    // The access rule: a thread without any approval or question is not the reviewer's to read.
    const plain = `e2e-${crypto.randomUUID()}`;
    await chat.open(plain);
    await chat.send('hello there');
    await expect(chat.lastAssistant()).toContainText('I can look up customers');
    // Answered by HTTP 404 (the check runs before the loading outline streams).
    const missing = await reviewer.goto(`/inbox/threads/${plain}`);
    expect(missing?.status()).toBe(404);
    await expect(reviewer.getByTestId('not-found')).toBeVisible();
    await expect(reviewer.getByTestId('thread-read-only')).toHaveCount(0);
    // An end user cannot use the reviewer's view, not even for her own thread.
    await page.goto(`/inbox/threads/${threadId}`);
    await expect(page).not.toHaveURL(/\/inbox\/threads\//);
    // The context API is for reviewers and admins only.
    expect((await page.request.get(`/api/inbox/calls/${call.id}/context`)).status()).toBe(403);
    expect((await reviewer.request.get(`/api/inbox/calls/no-such-call/context`)).status()).toBe(404);
    await rita.close();
  });
});

test.describe('inbox: assignment and queues', () => {
  test('claim, assign to a named reviewer and release, live in another reviewer’s inbox, audited; conflicts explained', async ({ browser, request, db }) => {
    const threadId = `assign-${crypto.randomUUID()}`;
    const started = await request.post('/api/agents/ops-agent/generate', {
      data: { messages: 'refund order ord-2001 for 150', threadId, resourceId: 'user-ada' },
    });
    expect(started.status()).toBe(200);
    const [call] = await pendingIn(db, threadId, 'issue-refund');

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const sam = await contextAs(browser, ACCOUNTS.sam);
    const ritaPage = await rita.newPage();
    const samPage = await sam.newPage();
    await ritaPage.setViewportSize(DESKTOP);
    const ritaInbox = new InboxPage(ritaPage);
    const samInbox = new InboxPage(samPage);
    await samInbox.open();
    await expect(samInbox.row(call.root_tool_call_id)).toBeVisible();
    await expect(samInbox.row(call.root_tool_call_id).getByTestId('row-assignee')).toHaveCount(0);

    // Rita claims it from Unassigned.
    await ritaPage.goto('/inbox?queue=unassigned');
    await expect(ritaPage.getByTestId('queue-unassigned')).toHaveAttribute('aria-current', 'page');
    await ritaInbox.select(call.root_tool_call_id);
    await expect(ritaPage.getByTestId('assignee')).toHaveText('nobody');
    await checkAccessible(ritaPage, 'inbox-queues-assignment');
    await ritaPage.getByTestId('assign-me').click();
    // Claimed from "Unassigned", the call moves to "For me" and stays open.
    await expect(ritaPage).toHaveURL(/queue=mine/);
    await expect(ritaPage.getByTestId('queue-mine')).toHaveAttribute('aria-current', 'page');
    await expect(ritaPage.getByTestId('assignee')).toHaveText('you');
    // Sam's open inbox shows it live, without a reload.
    await expect(samInbox.row(call.root_tool_call_id).getByTestId('row-assignee')).toContainText('Rita');

    // "For me" holds it now; "Unassigned" does not.
    await expect(ritaInbox.row(call.root_tool_call_id)).toHaveAttribute('data-selected', 'true');
    await ritaPage.getByTestId('queue-unassigned').click();
    await expect(ritaPage).toHaveURL(/queue=unassigned/);
    await expect(ritaInbox.row(call.root_tool_call_id)).toHaveCount(0);

    // A claim based on a stale view (it thought nobody had it) is refused with the holder.
    const stale = await samPage.request.post(`/api/inbox/calls/${call.id}/assignment`, { data: { assignee: 'reviewer-sam', expected: null } });
    expect(stale.status()).toBe(409);
    expect((await stale.json()).error).toMatchObject({ code: 'ASSIGNMENT_CHANGED', details: { assignedTo: 'reviewer-rita' } });
    // Only reviewers and admins can be assignees; only they can assign.
    const toUser = await samPage.request.post(`/api/inbox/calls/${call.id}/assignment`, { data: { assignee: 'user-ada' } });
    expect(toUser.status()).toBe(422);
    expect((await toUser.json()).error.code).toBe('INVALID_ASSIGNEE');
    const bad = await samPage.request.post(`/api/inbox/calls/${call.id}/assignment`, { data: { assignee: 42 } });
    expect(bad.status()).toBe(400);
    expect((await request.post(`/api/inbox/calls/${call.id}/assignment`, { data: { assignee: null } })).status()).toBe(403);

    // Rita hands it to Sam by name; Sam's "For me" has it.
    await ritaPage.goto('/inbox');
    await ritaInbox.select(call.root_tool_call_id);
    await ritaPage.getByLabel('Assign to a reviewer').selectOption({ label: 'Sam (sam@example.com)' });
    await expect(ritaPage.getByTestId('assignee')).toContainText('Sam');
    await samPage.goto('/inbox?queue=mine');
    await expect(samInbox.row(call.root_tool_call_id)).toBeVisible();
    await expect(samPage.getByTestId('queue-mine-count')).not.toHaveText('0');
    await samInbox.select(call.root_tool_call_id);
    await samPage.getByTestId('assign-release').click();
    // Released, nobody holds it: it stays in Sam's "For me" only as a call he may decide (no
    // assignee), and is back in "Unassigned".
    await expect(samPage.getByTestId('assignee')).toHaveText('nobody');
    await expect(samInbox.row(call.root_tool_call_id).getByTestId('row-assignee')).toHaveCount(0);
    await samPage.getByTestId('queue-unassigned').click();
    await expect(samInbox.row(call.root_tool_call_id)).toBeVisible();
    await expect(samInbox.row(call.root_tool_call_id).getByTestId('row-assignee')).toHaveCount(0);

    // Every change is in the append-only activity log, with who did it.
    const activity = await db.query<{ kind: string; actor_id: string; assignee: string | null }>(
      `SELECT kind, actor_id, assignee FROM call_activity WHERE pending_call_id = $1 ORDER BY created_at`,
      [call.id],
    );
    expect(activity).toEqual([
      { kind: 'assigned', actor_id: 'reviewer-rita', assignee: 'reviewer-rita' },
      { kind: 'assigned', actor_id: 'reviewer-rita', assignee: 'reviewer-sam' },
      { kind: 'released', actor_id: 'reviewer-sam', assignee: null },
    ]);
    await expect(db.query(`DELETE FROM call_activity WHERE pending_call_id = $1`, [call.id])).rejects.toThrow(/append-only/);
    await rita.close();
    await sam.close();
  });

  test('a reviewer’s own four-eyes request sits in "My requests" without Approve, and they can withdraw it', async ({ browser, db }) => {
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const threadId = `own-${crypto.randomUUID()}`;
    const started = await rita.request.post('/api/agents/ops-agent/generate', {
      data: { messages: 'refund order ord-2001 for 175', threadId, resourceId: 'reviewer-rita' },
    });
    expect(started.status()).toBe(200);
    const [call] = await pendingIn(db, threadId, 'issue-refund');

    const page = await rita.newPage();
    await page.setViewportSize(DESKTOP);
    const inbox = new InboxPage(page);
    // Kept apart: not in Unassigned, but in My requests.
    await page.goto('/inbox?queue=unassigned');
    await expect(page.getByTestId('queue-unassigned')).toHaveAttribute('aria-current', 'page');
    await expect(inbox.row(call.root_tool_call_id)).toHaveCount(0);
    await page.getByTestId('queue-requested').click();
    await expect(inbox.row(call.root_tool_call_id)).toBeVisible();
    await inbox.select(call.root_tool_call_id);
    const own = page.getByTestId('own-request');
    await expect(own).toContainText('You asked for this action, so another reviewer must decide it');
    await expect(page.getByTestId('inbox-approve')).toHaveCount(0);
    await expect(page.getByTestId('inbox-decline')).toHaveCount(0);
    await expect(page.getByTestId('assign-me')).toHaveCount(0);
    // The `a` key does not approve it either.
    await inbox.row(call.root_tool_call_id).locator('button').first().focus();
    await page.keyboard.press('a');
    await checkAccessible(page, 'inbox-own-request');
    expect((await db.query(`SELECT status FROM pending_tool_calls WHERE id = $1`, [call.id]))[0].status).toBe('pending');

    // Someone else cannot withdraw it for Rita.
    const sam = await contextAs(browser, ACCOUNTS.sam);
    const notTheirs = await sam.request.post(`/api/runs/${call.root_run_id}/tool-calls/${encodeURIComponent(call.root_tool_call_id)}/decision`, {
      data: { approved: false, withdraw: true },
    });
    expect(notTheirs.status()).toBe(403);
    expect((await notTheirs.json()).error.code).toBe('NOT_REQUESTER');
    const approveWithdraw = await page.request.post(`/api/runs/${call.root_run_id}/tool-calls/${encodeURIComponent(call.root_tool_call_id)}/decision`, {
      data: { approved: true, withdraw: true },
    });
    expect(approveWithdraw.status()).toBe(400);

    await own.getByTestId('inbox-withdraw').click();
    await expect(inbox.row(call.root_tool_call_id)).toHaveCount(0);
    const [row] = await db.query<{ status: string; decision_reason: string; decided_by: string }>(
      `SELECT status, decision_reason, decided_by FROM pending_tool_calls WHERE id = $1`,
      [call.id],
    );
    expect(row).toEqual({ status: 'declined', decision_reason: 'withdrawn by requester', decided_by: 'reviewer-rita' });
    const decisions = await db.query<{ kind: string; approved: boolean; reason: string; actor_id: string }>(
      `SELECT kind, approved, reason, actor_id FROM decisions WHERE pending_call_id = $1`,
      [call.id],
    );
    expect(decisions).toEqual([{ kind: 'decline', approved: false, reason: 'withdrawn by requester', actor_id: 'reviewer-rita' }]);
    // A second withdrawal loses like any late decision.
    const again = await page.request.post(`/api/runs/${call.root_run_id}/tool-calls/${encodeURIComponent(call.root_tool_call_id)}/decision`, {
      data: { approved: false, withdraw: true },
    });
    expect(again.status()).toBe(409);
    await sam.close();
    await rita.close();
  });

  test('an end user withdraws her reviewer-only request from the chat card', async ({ chat, page, db }) => {
    await page.setViewportSize(DESKTOP);
    const threadId = await chat.open();
    await chat.send('refund order ord-2001 for 120');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await expect(card.getByTestId('approve-button')).toHaveCount(0);
    await card.getByTestId('withdraw-button').click();
    await expect(card).toHaveAttribute('data-state', 'declined');
    await expect(card.getByTestId('approval-outcome')).toContainText('Withdrawn by you');
    await expect(chat.lastAssistant()).toContainText('withdrawn by requester');
    const [row] = await db.query<{ status: string; decision_reason: string }>(
      `SELECT status, decision_reason FROM pending_tool_calls WHERE thread_id = $1`,
      [threadId],
    );
    expect(row).toEqual({ status: 'declined', decision_reason: 'withdrawn by requester' });
  });
});

test.describe('inbox: bulk decisions', () => {
  test('checkboxes, shift-click and x select; approve many; a conflict on one names the winner and undoes nothing; decline many with one reason', async ({
    browser,
    request,
    db,
  }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const start = async (n: number) => {
      const threadId = `bulk-${crypto.randomUUID()}`;
      const started = await request.post('/api/agents/ops-agent/generate', {
        data: { messages: `/tool send-email {"to":"ops@example.com","subject":"Bulk ${tag} ${n}","body":"Numbers attached."}`, threadId, resourceId: 'user-ada' },
      });
      expect(started.status()).toBe(200);
      return (await pendingIn(db, threadId, 'send-email'))[0];
    };
    const calls = [await start(0), await start(1), await start(2), await start(3)];

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const page = await rita.newPage();
    await page.setViewportSize(DESKTOP);
    const inbox = new InboxPage(page);
    await inbox.open();
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
    const more = [await start(4), await start(5)];
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

test.describe('inbox: notes and questions to the requester', () => {
  test('a note stays with the call and in the audit; a question appears in the requester’s chat without deciding; her reply is context', async ({
    browser,
    chat,
    page,
    db,
  }) => {
    await page.setViewportSize(DESKTOP);
    const threadId = await chat.open();
    await chat.send('refund order ord-2001 for 130');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    const [call] = await pendingIn(db, threadId, 'issue-refund');

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const reviewer = await rita.newPage();
    await reviewer.setViewportSize(DESKTOP);
    const inbox = new InboxPage(reviewer);
    await inbox.open();
    await inbox.select(call.root_tool_call_id);
    const activity = reviewer.getByTestId('call-activity');
    await activity.getByTestId('note-body').fill('Checked with finance: the order is real.');
    await activity.getByTestId('note-send').click();
    await expect(activity.getByTestId('activity-entry').filter({ hasText: 'Checked with finance' })).toHaveAttribute('data-kind', 'comment');

    await activity.getByTestId('note-kind-question').click();
    await activity.getByTestId('note-body').fill('Is this the order with the broken blender?');
    await checkAccessible(reviewer, 'inbox-notes');
    await activity.getByTestId('note-send').click();
    await expect(activity.getByTestId('activity-entry').filter({ hasText: 'broken blender' })).toHaveAttribute('data-kind', 'question');

    // Ada's open chat shows the question by itself; her card still waits.
    const question = page.getByTestId('reviewer-question');
    await expect(question).toContainText('Is this the order with the broken blender?');
    await expect(question).toContainText('Rita');
    await expect(question).toContainText('Refunds $130.00 on order ord-2001');
    await expect(card).toHaveAttribute('data-state', 'pending');
    expect((await db.query(`SELECT status FROM pending_tool_calls WHERE id = $1`, [call.id]))[0].status).toBe('pending');
    await checkAccessible(page, 'chat-reviewer-question');
    // The question survives a reload.
    await page.reload();
    await expect(page.getByTestId('reviewer-question')).toContainText('broken blender');

    // Her reply is context for the reviewer.
    await chat.send('Yes, that is the one with the broken blender.');
    await expect(chat.lastAssistant()).toContainText('I can look up customers');
    await reviewer.reload();
    await inbox.select(call.root_tool_call_id);
    await expect(reviewer.getByTestId('context-messages')).toContainText('Yes, that is the one with the broken blender.');

    // Bad input changes nothing; an end user cannot add notes.
    const empty = await reviewer.request.post(`/api/inbox/calls/${call.id}/notes`, { data: { kind: 'comment', body: '   ' } });
    expect(empty.status()).toBe(400);
    expect((await page.request.post(`/api/inbox/calls/${call.id}/notes`, { data: { kind: 'comment', body: 'hi' } })).status()).toBe(403);

    // Declined: the notes are in the audit with the decision; no more notes on a decided call.
    await reviewer.getByTestId('inbox-decline').click();
    await reviewer.getByTestId('inbox-decline-reason').fill('Needs the receipt first');
    await reviewer.getByTestId('inbox-decline-confirm').click();
    await expect(card).toHaveAttribute('data-state', 'declined');
    const late = await reviewer.request.post(`/api/inbox/calls/${call.id}/notes`, { data: { kind: 'comment', body: 'late' } });
    expect(late.status()).toBe(409);
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const audit = await alex.request.get('/api/audit?toolName=issue-refund&limit=50');
    const entry = (await audit.json()).entries.find((e: { runId: string }) => e.runId === call.root_run_id);
    expect(entry.activity.map((a: { kind: string; body: string }) => [a.kind, a.body])).toEqual([
      ['comment', 'Checked with finance: the order is real.'],
      ['question', 'Is this the order with the broken blender?'],
    ]);
    const admin = await alex.newPage();
    await admin.setViewportSize(MOBILE);
    await admin.goto('/audit');
    await admin.getByText('Needs the receipt first').first().click();
    await expect(admin.getByTestId('audit-activity').first()).toContainText('Checked with finance');
    await alex.close();
    await rita.close();
  });
});

test.describe('inbox: keyboard', () => {
  test('? lists every shortcut; j/k/arrows move; a approves and focus moves on; d declines; c claims; x selects; digits switch queues', async ({ browser, request, db }) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const calls: Awaited<ReturnType<typeof pendingIn>> = [];
    for (const n of [0, 1, 2]) {
      const threadId = `keys-${crypto.randomUUID()}`;
      const started = await request.post('/api/agents/ops-agent/generate', {
        data: { messages: `/tool send-email {"to":"ops@example.com","subject":"Keys ${tag} ${n}","body":"Hi."}`, threadId, resourceId: 'user-ada' },
      });
      expect(started.status()).toBe(200);
      calls.push((await pendingIn(db, threadId, 'send-email'))[0]);
    }
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const page = await rita.newPage();
    await page.setViewportSize(DESKTOP);
    const inbox = new InboxPage(page);
    await inbox.open();
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
  test('the form enforces the tool’s limits before sending; the card and the audit show what changed, field by field', async ({ browser, chat, page, db }) => {
    await page.setViewportSize(DESKTOP);
    const threadId = await chat.open();
    await chat.send('refund order ord-2001 for 250');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    const [call] = await pendingIn(db, threadId, 'issue-refund');

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const reviewer = await rita.newPage();
    await reviewer.setViewportSize(DESKTOP);
    const inbox = new InboxPage(reviewer);
    await inbox.open();
    await inbox.select(call.root_tool_call_id);
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
