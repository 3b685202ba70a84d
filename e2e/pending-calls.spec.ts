import type { APIRequestContext } from '@playwright/test';
import { ACCOUNTS, contextAs, expect, signIn, test, type Db } from './support';
import { parseSse } from './sse';

type Chunk = { type: string; runId: string; from: string; payload: Record<string, any> };
type UIChunk = { type: string; id?: string; data?: Record<string, any>; delta?: string };

/** Two approvals inside one sub-agent step: the exact input from the report. */
const TWO_LOOKUPS = String.raw`/tool agent-data-agent {"prompt":"/tool find-user {\"userId\":\"cus-1\"}\n/tool find-user {\"userId\":\"cus-2\"}"}`;
const supervisor = '/api/agents/supervisor';
const ids = () => ({ threadId: `pc-${crypto.randomUUID()}`, resourceId: 'user-ada' });

/** The thread's waiting calls as the database has them, by the id people address them with. */
async function waitingCalls(db: Db, threadId: string) {
  return db.query<{ root_run_id: string; root_tool_call_id: string; args: { userId: string } }>(
    `SELECT root_run_id, root_tool_call_id, args FROM pending_tool_calls WHERE thread_id = $1 AND status = 'pending' ORDER BY seq`,
    [threadId],
  );
}

test.describe('every pending call has its own id (two approvals inside one sub-agent step)', () => {
  test('in the chat: two cards, also after a reload; one approved in the chat, the other in the inbox; the supervisor answers', async ({ browser, chat, db, page }) => {
    await page.goto('/?agent=supervisor');
    await expect(page.getByTestId('chat-agent')).toContainText('Supervisor');
    await page.waitForURL(/\/chat\//);
    const threadId = new URL(page.url()).pathname.split('/').at(-1)!;
    await chat.send(TWO_LOOKUPS);

    const cards = page.locator('[data-testid="approval-card"][data-tool-name="find-user"]');
    const card = (userId: string) => page.locator(`[data-testid="approval-card"][data-tool-name="find-user"][data-args='${JSON.stringify({ userId })}']`);
    await expect(cards).toHaveCount(2);
    for (const userId of ['cus-1', 'cus-2']) {
      await expect(card(userId)).toHaveAttribute('data-state', 'pending');
      await expect(card(userId)).toContainText('supervisor › data-agent › find-user');
    }
    const waiting = await waitingCalls(db, threadId);
    expect(waiting.map((row) => row.args.userId)).toEqual(['cus-1', 'cus-2']);
    expect(new Set(waiting.map((row) => row.root_tool_call_id)).size).toBe(2);

    await page.reload();
    await expect(cards).toHaveCount(2);
    await expect(card('cus-1')).toHaveAttribute('data-state', 'pending');
    await expect(card('cus-2')).toHaveAttribute('data-state', 'pending');

    // The second one from the chat: the run keeps waiting for the first.
    await card('cus-2').getByTestId('approve-button').click();
    await expect(card('cus-2')).toHaveAttribute('data-state', 'approved');
    await expect(card('cus-1')).toHaveAttribute('data-state', 'pending');
    await expect(cards).toHaveCount(2);

    // The first from the inbox, by its own id.
    const [first] = (await waitingCalls(db, threadId)).filter((row) => row.args.userId === 'cus-1');
    expect(first.root_tool_call_id).toBe(waiting[0].root_tool_call_id);
    const reviewer = await contextAs(browser, ACCOUNTS.rita);
    const inbox = await reviewer.newPage();
    await inbox.goto('/inbox');
    await expect(inbox.locator(`[data-testid="inbox-row"][data-run-id="${first.root_run_id}"]`)).toHaveCount(1);
    const row = inbox.locator(`[data-testid="inbox-row"][data-tool-call-id="${first.root_tool_call_id}"]`);
    await expect(row).toContainText('supervisor › data-agent › find-user');
    await row.click();
    await inbox.getByTestId('inbox-approve').click();
    await expect(row).toHaveCount(0);
    await reviewer.close();

    // The user's open chat goes on by itself; the run finishes with both look-ups.
    await expect(card('cus-1')).toHaveAttribute('data-state', 'approved');
    await expect(chat.lastAssistant()).toContainText('Grace Hopper');
    await expect(chat.lastAssistant()).toContainText('Alan Turing');
    expect(await db.query(`SELECT status FROM runs WHERE thread_id = $1 AND parent_run_id IS NULL`, [threadId])).toEqual([{ status: 'completed' }]);
    await page.reload();
    await expect(cards).toHaveCount(2);
    await expect(card('cus-1')).toHaveAttribute('data-state', 'approved');
    await expect(card('cus-2')).toHaveAttribute('data-state', 'approved');
  });

  test('over HTTP: suspended-runs, the inbox and the 409 name each call by its own id; every decision route takes it', async ({ request, playwright, baseURL, db }) => {
    const reviewer = await playwright.request.newContext({ baseURL });
    await signIn(reviewer, ACCOUNTS.rita);

    // 1. agents stream → approve-tool-call (one) and decline-tool-call (the other), over SSE.
    const one = ids();
    const started = await parseSse<Chunk>(await (await request.post(`${supervisor}/stream`, { data: { messages: TWO_LOOKUPS, ...one } })).body());
    const delegation = started.find((chunk) => chunk.type === 'tool-call')!;
    const approvals = started.filter((chunk) => chunk.type === 'tool-call-approval');
    const [id1, id2] = approvals.map((chunk) => chunk.payload.toolCallId as string);
    expect(approvals.map((chunk) => chunk.payload.args)).toEqual([{ userId: 'cus-1' }, { userId: 'cus-2' }]);
    expect(id1).not.toBe(id2);
    for (const approval of approvals) {
      expect(approval.payload.toolCallId).toBe(`${delegation.payload.toolCallId}~${approval.payload.leafToolCallId}`);
    }
    const runId = approvals[0].runId;

    const listed = await (await request.get(`${supervisor}/suspended-runs?threadId=${one.threadId}`)).json();
    expect(listed.total).toBe(1);
    expect(listed.runs[0].toolCalls.map((call: { toolCallId: string }) => call.toolCallId)).toEqual([id1, id2]);
    const inbox = (await (await reviewer.get('/api/inbox?limit=100')).json()).items.filter((item: { runId: string }) => item.runId === runId);
    expect(inbox.map((item: { toolCallId: string }) => item.toolCallId).sort()).toEqual([id1, id2].sort());

    for (const route of ['approve-tool-call', 'decline-tool-call']) {
      const ambiguous = await request.post(`${supervisor}/${route}`, { data: { runId, toolCallId: delegation.payload.toolCallId } });
      expect(ambiguous.status(), route).toBe(409);
      expect((await ambiguous.json()).error).toMatchObject({ code: 'AMBIGUOUS_TOOL_CALL', details: { toolCallIds: [id1, id2] } });
    }
    const viaSend = await request.post(`${supervisor}/send-tool-approval`, { data: { ...one, toolCallId: delegation.payload.toolCallId, approved: true } });
    expect(viaSend.status()).toBe(409);

    const approved = await parseSse<Chunk>(await (await request.post(`${supervisor}/approve-tool-call`, { data: { runId, toolCallId: id2 } })).body());
    expect(approved.filter((chunk) => chunk.type === 'tool-call-resumed').map((chunk) => chunk.payload.toolCallId)).toEqual([id2]);
    expect(approved.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });
    const again = await request.post(`${supervisor}/approve-tool-call`, { data: { runId, toolCallId: id2 } });
    expect(again.status()).toBe(409);
    expect((await again.json()).error.code).toBe('ALREADY_DECIDED');
    const declined = await parseSse<Chunk>(
      await (await request.post(`${supervisor}/decline-tool-call`, { data: { runId, toolCallId: id1, reason: 'not cus-1' } })).body(),
    );
    expect(declined.filter((chunk) => chunk.type === 'tool-call-resumed').map((chunk) => chunk.payload.toolCallId)).toEqual([id1]);
    const text = declined.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.payload.text).join('');
    expect(text).toContain('Alan Turing');
    expect(text).toContain('not cus-1');
    const audit = await db.query<{ root_tool_call_id: string; kind: string }>(
      `SELECT p.root_tool_call_id, d.kind FROM decisions d JOIN pending_tool_calls p ON p.id = d.pending_call_id WHERE p.root_run_id = $1 ORDER BY d.created_at`,
      [runId],
    );
    expect(audit).toEqual([
      { root_tool_call_id: id2, kind: 'approval' },
      { root_tool_call_id: id1, kind: 'decline' },
    ]);

    // 2. generate → the -generate variants.
    const two = ids();
    const paused = await (await request.post(`${supervisor}/generate`, { data: { messages: TWO_LOOKUPS, ...two } })).json();
    expect(paused.finishReason).toBe('suspended');
    const [g1, g2] = paused.suspendedToolCalls.map((call: { toolCallId: string }) => call.toolCallId);
    const partial = await (await request.post(`${supervisor}/approve-tool-call-generate`, { data: { runId: paused.runId, toolCallId: g1 } })).json();
    expect(partial.finishReason).toBe('suspended');
    const done = await (await request.post(`${supervisor}/decline-tool-call-generate`, { data: { runId: paused.runId, toolCallId: g2, reason: 'no' } })).json();
    expect(done.finishReason).toBe('stop');
    expect(done.text).toContain('Grace Hopper');

    // 3. The chat's decision body and the runs route, in the reverse order.
    const three = await chatTurn(request, TWO_LOOKUPS);
    const viaRuns = await request.post(`/api/runs/${three.runId}/tool-calls/${encodeURIComponent(three.ids[1])}/decision`, { data: { approved: true } });
    expect(viaRuns.status()).toBe(200);
    const runsParts = (await parseSse<UIChunk>(await viaRuns.body())).filter((part) => part.type === 'data-tool-call-approval');
    expect(runsParts.map((part) => [part.id, part.data?.toolCallId, part.data?.resumed])).toEqual([[three.ids[1], three.ids[1], true]]);
    const viaChat = await request.post('/api/chat', {
      data: { id: three.threadId, messages: [], decision: { runId: three.runId, toolCallId: three.ids[0], approved: true } },
    });
    expect(viaChat.status()).toBe(200);
    const chatParts = await parseSse<UIChunk>(await viaChat.body());
    expect(chatParts.filter((part) => part.type === 'data-tool-call-approval').map((part) => part.id)).toEqual([three.ids[0]]);
    const answer = chatParts.filter((part) => part.type === 'text-delta').map((part) => part.delta).join('');
    expect(answer).toContain('Grace Hopper');
    expect(answer).toContain('Alan Turing');
    await reviewer.dispose();
  });
});

/**
 * Starts a chat turn with `text` on a new thread (POST /api/chat) and reads it to the end.
 * @returns the thread, the top-level run and the ids of its approval cards, in order
 */
async function chatTurn(request: APIRequestContext, text: string) {
  const threadId = `pc-${crypto.randomUUID()}`;
  const response = await request.post('/api/chat', {
    data: { id: threadId, agentId: 'supervisor', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] },
  });
  expect(response.status()).toBe(200);
  const cards = (await parseSse<UIChunk>(await response.body())).filter((part) => part.type === 'data-tool-call-approval');
  expect(cards).toHaveLength(2);
  const ids = cards.map((part) => part.id!);
  expect(new Set(ids).size).toBe(2);
  expect(cards.map((part) => part.data?.toolCallId)).toEqual(ids);
  return { threadId, runId: cards[0].data!.runId as string, ids };
}

test.describe('listings right after a decision', () => {
  test('send-tool-approval accepted → suspended-runs at once lists nothing for the thread, and total matches the pages', async ({ request }) => {
    const mine = { threadId: `pc-${crypto.randomUUID()}`, resourceId: 'user-ada' };
    const ops = '/api/agents/ops-agent';
    for (const record of ['rec-50', 'rec-51']) {
      const paused = await (await request.post(`${ops}/generate`, { data: { messages: `delete record ${record}`, ...mine } })).json();
      expect(paused.finishReason).toBe('suspended');
    }
    const before = await (await request.get(`${ops}/suspended-runs?threadId=${mine.threadId}`)).json();
    expect(before.total).toBe(2);
    const target = before.runs.find((run: { toolCalls: { args: { id: string } }[] }) => run.toolCalls[0].args.id === 'rec-51');

    const accepted = await request.post(`${ops}/send-tool-approval`, { data: { ...mine, toolCallId: target.toolCalls[0].toolCallId, approved: true } });
    expect(await accepted.json()).toMatchObject({ accepted: true, runId: target.runId });
    const [all, first, second] = await Promise.all(
      ['', '&page=0&perPage=1', '&page=1&perPage=1'].map(async (query) => (await request.get(`${ops}/suspended-runs?threadId=${mine.threadId}${query}`)).json()),
    );
    for (const listing of [all, first, second]) expect(listing.total).toBe(1);
    expect(all.runs.map((run: { runId: string }) => run.runId)).not.toContain(target.runId);
    expect([...first.runs, ...second.runs]).toHaveLength(1);
    expect(all.runs[0].toolCalls[0].args).toEqual({ id: 'rec-50' });
  });
});

test('the inbox counts every waiting call, not only the page it shows, while older calls follow', async ({ browser, request }) => {
  const mine = { threadId: `pc-${crypto.randomUUID()}`, resourceId: 'user-ada' };
  const ops = '/api/agents/ops-agent';
  const lines = Array.from({ length: 51 }, (_, i) => `/tool delete-record {"id":"rec-bulk-${i}"}`).join('\n');
  const paused = await (await request.post(`${ops}/generate`, { data: { messages: lines, ...mine } })).json();
  expect(paused.suspendedToolCalls).toHaveLength(51);
  const reviewer = await contextAs(browser, ACCOUNTS.rita);
  const inbox = await reviewer.newPage();
  await inbox.goto('/inbox');
  await expect(inbox.getByTestId('inbox-row')).toHaveCount(50);
  // The header counts on the server, as the queue tabs do (issue 30, item 9): all 51, not the page's 50.
  await expect(inbox.getByTestId('inbox-count')).toHaveText(/^\d+$/);
  expect(Number(await inbox.getByTestId('inbox-count').textContent())).toBeGreaterThanOrEqual(51);
  await expect(inbox.getByTestId('inbox-older')).toBeVisible();
  await reviewer.close();
  // Leave nothing waiting for the other tests' inbox pages.
  for (const call of paused.suspendedToolCalls as { toolCallId: string }[]) {
    const declined = await request.post(`${ops}/decline-tool-call-generate`, { data: { runId: paused.runId, toolCallId: call.toolCallId } });
    expect(declined.status()).toBe(200);
  }
});
