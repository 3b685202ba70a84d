import { ACCOUNTS, contextAs, expect, test } from './support';
import { checkAccessible, DESKTOP, InboxPage, MOBILE, reviewerInbox, screenshotBoth } from './ui';

// These flows drive two or three browsers each; on a busy 2-core machine they need more than the default minute.
test.describe.configure({ timeout: 240_000 });

// The reviewer's day one (inbox detail): context beside the call, assignment and queues, and notes
// and questions to the requester. Working through many calls (bulk decisions, the keyboard, the
// edit form with its diff) is inbox-triage.spec.ts.

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
    const [call] = await db.pendingIn(threadId, 'issue-refund');

    const { context: rita, page: reviewer, inbox } = await reviewerInbox(browser, ACCOUNTS.rita, call.root_tool_call_id);
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
    const [call] = await db.pendingIn(threadId, 'issue-refund');

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

    // Asking for what already is (releasing a call nobody holds, a second claim) changes and records nothing.
    const again = await samPage.request.post(`/api/inbox/calls/${call.id}/assignment`, { data: { assignee: null } });
    expect([again.status(), await again.json()]).toEqual([200, { assignedTo: null }]);

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
    const [call] = await db.pendingIn(threadId, 'issue-refund');

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
    const [call] = await db.pendingIn(threadId, 'issue-refund');

    const { context: rita, page: reviewer, inbox } = await reviewerInbox(browser, ACCOUNTS.rita, call.root_tool_call_id);
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
