import { ACCOUNTS, contextAs, expect, test, type Db } from './support';
import { checkAccessible, DESKTOP, InboxPage, MOBILE, screenshotBoth } from './ui';

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
    // (The inbox streams its loading outline first, so the page says "not found" with status 200.)
    await reviewer.goto(`/inbox/threads/${plain}`);
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
