import { ACCOUNTS, contextAs, expect, test, type Db } from './support';
import { E2E_DATABASE_URL } from './config';
import { Agent } from '../lib/agent/agent';
import { createOpsTools } from '../lib/demo/tools';
import { ScriptedModel } from '../lib/models/scripted';
import { createPrismaClient } from '../lib/store/db';
import { PrismaAgentStore } from '../lib/store/prisma-store';
import { parseSse } from './sse';

// Identity comes from the session: nobody starts a run for someone else or writes into their
// thread, and four-eyes compares the signed-in identities, at every entrance.

type Chunk = { type: string; runId: string; payload: Record<string, any> };

const userMessage = (text: string) => [{ role: 'user', parts: [{ type: 'text', text }] }];
const newId = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;

/** The one pending row of a thread. */
async function pendingOf(db: Db, threadId: string) {
  const rows = await db.query<{ run_id: string; tool_call_id: string; root_run_id: string; requested_by: string; status: string }>(
    `SELECT run_id, tool_call_id, root_run_id, requested_by, status FROM pending_tool_calls WHERE thread_id = $1 AND kind <> 'delegation' ORDER BY created_at`,
    [threadId],
  );
  expect(rows.length, `pending rows of ${threadId}`).toBe(1);
  return rows[0];
}

async function refundedOn(db: Db, orderId: string): Promise<number> {
  return Number((await db.query('SELECT refunded FROM orders WHERE id = $1', [orderId]))[0].refunded);
}

test.describe('who acts is whoever is signed in', () => {
  test("nobody starts a run for someone else or writes into their thread: stream, generate, send-tool-approval, chat, auto-resume", async ({
    browser,
    request,
    db,
  }) => {
    // Ada's thread waits on her weather question.
    const adaThread = newId('ada');
    const asked = await (await request.post('/api/agents/ops-agent/generate', { data: { messages: "what's the weather?", threadId: adaThread, resourceId: 'user-ada' } })).json();
    expect(asked.finishReason).toBe('suspended');

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const r = rita.request;
    const ritaNewThread = newId('rita-for-ada');
    const attempts: { name: string; send: () => Promise<import('@playwright/test').APIResponse>; status: number; code: string }[] = [
      // The bypass: a new thread started "as" Ada.
      { name: 'stream for Ada', send: () => r.post('/api/agents/ops-agent/stream', { data: { messages: '/tool issue-refund {"orderId":"ord-2001","amount":250}', threadId: ritaNewThread, resourceId: 'user-ada' } }), status: 403, code: 'FORBIDDEN' },
      { name: 'generate for Ada', send: () => r.post('/api/agents/ops-agent/generate', { data: { messages: 'refund order ord-2001 for 250', threadId: ritaNewThread, resourceId: 'user-ada' } }), status: 403, code: 'FORBIDDEN' },
      { name: 'memory form for Ada', send: () => r.post('/api/agents/ops-agent/stream', { data: { messages: 'hi', memory: { thread: ritaNewThread, resource: 'user-ada' } } }), status: 403, code: 'FORBIDDEN' },
      // The wrong-actor case: answering Ada's question by auto-resume on her thread.
      { name: 'auto-resume as Ada', send: () => r.post('/api/agents/ops-agent/stream', { data: { messages: 'Paris', threadId: adaThread, resourceId: 'user-ada', autoResumeSuspendedTools: true } }), status: 403, code: 'FORBIDDEN' },
      { name: 'auto-resume as herself', send: () => r.post('/api/agents/ops-agent/stream', { data: { messages: 'Paris', threadId: adaThread, resourceId: 'reviewer-rita', autoResumeSuspendedTools: true } }), status: 404, code: 'NOT_FOUND' },
      { name: 'generate on her thread', send: () => r.post('/api/agents/ops-agent/generate', { data: { messages: 'Paris', threadId: adaThread, resourceId: 'reviewer-rita', autoResumeSuspendedTools: true } }), status: 404, code: 'NOT_FOUND' },
      { name: 'send-tool-approval as Ada', send: () => r.post('/api/agents/ops-agent/send-tool-approval', { data: { threadId: adaThread, resourceId: 'user-ada', approved: true, resumeData: { city: 'Paris' } } }), status: 403, code: 'FORBIDDEN' },
      { name: 'send-tool-approval as herself', send: () => r.post('/api/agents/ops-agent/send-tool-approval', { data: { threadId: adaThread, resourceId: 'reviewer-rita', approved: true, resumeData: { city: 'Paris' } } }), status: 404, code: 'NOT_FOUND' },
      { name: 'chat on her thread', send: () => r.post('/api/chat', { data: { id: adaThread, messages: userMessage('Paris') } }), status: 404, code: 'NOT_FOUND' },
    ];
    for (const attempt of attempts) {
      const response = await attempt.send();
      expect(response.status(), attempt.name).toBe(attempt.status);
      expect((await response.json()).error.code, attempt.name).toBe(attempt.code);
    }
    await rita.close();

    // Nothing changed: no thread was made for Ada, her question still waits, "Paris" is not in her thread.
    expect(await db.query('SELECT id FROM threads WHERE id = $1', [ritaNewThread])).toHaveLength(0);
    expect((await pendingOf(db, adaThread)).status).toBe('pending');
    expect(await db.query('SELECT 1 FROM decisions WHERE run_id = $1', [asked.runId])).toHaveLength(0);
    expect(await db.query(`SELECT content FROM messages WHERE thread_id = $1 AND role = 'user'`, [adaThread])).toEqual([{ content: "what's the weather?" }]);

    // Ada answers by auto-resume herself: the audit names her.
    const answered = await (await request.post('/api/agents/ops-agent/generate', { data: { messages: 'Paris', threadId: adaThread, resourceId: 'user-ada', autoResumeSuspendedTools: true } })).json();
    expect(answered.text).toContain('Paris');
    expect(await db.query('SELECT actor_id, actor_role, kind FROM decisions WHERE run_id = $1', [asked.runId])).toEqual([
      { actor_id: 'user-ada', actor_role: 'user', kind: 'resume' },
    ]);
  });

  test('four-eyes: a reviewer who asked for a refund can neither approve nor decline it through any entrance; another reviewer can', async ({ browser, db }) => {
    await db.query(`UPDATE orders SET refunded = 0, status = 'paid' WHERE id = 'ord-2001'`);
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const r = rita.request;

    // Two runs Rita starts herself: one in the chat, one through the agents API.
    const chatThread = newId('rita-chat');
    expect((await r.post('/api/chat', { data: { id: chatThread, messages: userMessage('refund order ord-2001 for 150') } })).status()).toBe(200);
    const apiThread = newId('rita-api');
    const started = await r.post('/api/agents/ops-agent/stream', { data: { messages: 'refund order ord-2001 for 160', threadId: apiThread, resourceId: 'reviewer-rita' } });
    expect((await parseSse<Chunk>(await started.body())).some((chunk) => chunk.type === 'tool-call-approval')).toBe(true);

    for (const threadId of [chatThread, apiThread]) {
      const call = await pendingOf(db, threadId);
      // The requester is the signed-in identity, stored with the run and its pending call.
      expect(call.requested_by).toBe('reviewer-rita');
      expect(await db.query('SELECT requested_by FROM runs WHERE id = $1', [call.run_id])).toEqual([{ requested_by: 'reviewer-rita' }]);
      const target = { runId: call.root_run_id, toolCallId: call.tool_call_id };
      const entrances: [string, () => Promise<import('@playwright/test').APIResponse>][] = [
        ['runs decision approve', () => r.post(`/api/runs/${target.runId}/tool-calls/${target.toolCallId}/decision`, { data: { approved: true } })],
        ['runs decision decline', () => r.post(`/api/runs/${target.runId}/tool-calls/${target.toolCallId}/decision`, { data: { approved: false, reason: 'x' } })],
        ['runs decision with edited args', () => r.post(`/api/runs/${target.runId}/tool-calls/${target.toolCallId}/decision`, { data: { approved: true, args: { orderId: 'ord-2001', amount: 101 } } })],
        ['chat decision approve', () => r.post('/api/chat', { data: { id: threadId, messages: [], decision: { ...target, approved: true } } })],
        ['chat decision decline', () => r.post('/api/chat', { data: { id: threadId, messages: [], decision: { ...target, approved: false } } })],
        ['approve-tool-call', () => r.post('/api/agents/ops-agent/approve-tool-call', { data: target })],
        ['decline-tool-call', () => r.post('/api/agents/ops-agent/decline-tool-call', { data: target })],
        ['approve-tool-call-generate', () => r.post('/api/agents/ops-agent/approve-tool-call-generate', { data: target })],
        ['decline-tool-call-generate', () => r.post('/api/agents/ops-agent/decline-tool-call-generate', { data: { ...target, reason: 'x' } })],
        ['send-tool-approval approve', () => r.post('/api/agents/ops-agent/send-tool-approval', { data: { threadId, resourceId: 'reviewer-rita', approved: true } })],
        ['send-tool-approval decline', () => r.post('/api/agents/ops-agent/send-tool-approval', { data: { threadId, resourceId: 'reviewer-rita', approved: false } })],
      ];
      for (const [name, send] of entrances) {
        const response = await send();
        expect(response.status(), name).toBe(403);
        expect((await response.json()).error.code, name).toBe('FOUR_EYES');
      }
      expect((await pendingOf(db, threadId)).status).toBe('pending');
      expect(await db.query('SELECT 1 FROM decisions WHERE run_id = $1', [call.run_id])).toHaveLength(0);
    }
    expect(await refundedOn(db, 'ord-2001')).toBe(0);
    await rita.close();

    const sam = await contextAs(browser, ACCOUNTS.sam);
    const call = await pendingOf(db, apiThread);
    const approved = await sam.request.post('/api/agents/ops-agent/approve-tool-call-generate', { data: { runId: call.root_run_id, toolCallId: call.tool_call_id } });
    expect(approved.status()).toBe(200);
    expect((await approved.json()).text).toContain('Refunded $160 on ord-2001');
    expect(await refundedOn(db, 'ord-2001')).toBe(160);
    await sam.close();
  });
});

test.describe('four-eyes against the stored requester', () => {
  test('a run Rita started for Ada (through the runtime, as an integration may) cannot be decided by Rita at any entrance', async ({ browser, db, request }) => {
    await db.query(`UPDATE orders SET refunded = 0, status = 'paid' WHERE id = 'ord-2001'`);
    // The same runtime the server runs, in this process, on the same database.
    const client = createPrismaClient(E2E_DATABASE_URL);
    const agent = new Agent({ id: 'ops-agent', name: 'Ops agent', instructions: 'x', model: new ScriptedModel(), tools: createOpsTools(client), store: new PrismaAgentStore(client) });
    const threadId = newId('on-behalf');
    const paused = await agent.generate('refund order ord-2001 for 180', { threadId, resourceId: 'user-ada', requester: { id: 'reviewer-rita', role: 'reviewer' } });
    await client.$disconnect();
    expect(paused.finishReason).toBe('suspended');
    const target = { runId: paused.runId, toolCallId: paused.suspendedToolCalls[0].toolCallId };

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const r = rita.request;
    const entrances: [string, () => Promise<import('@playwright/test').APIResponse>, number, string][] = [
      ['runs decision approve', () => r.post(`/api/runs/${target.runId}/tool-calls/${target.toolCallId}/decision`, { data: { approved: true } }), 403, 'FOUR_EYES'],
      ['runs decision decline', () => r.post(`/api/runs/${target.runId}/tool-calls/${target.toolCallId}/decision`, { data: { approved: false } }), 403, 'FOUR_EYES'],
      ['approve-tool-call', () => r.post('/api/agents/ops-agent/approve-tool-call', { data: target }), 403, 'FOUR_EYES'],
      ['decline-tool-call', () => r.post('/api/agents/ops-agent/decline-tool-call', { data: target }), 403, 'FOUR_EYES'],
      ['approve-tool-call-generate', () => r.post('/api/agents/ops-agent/approve-tool-call-generate', { data: target }), 403, 'FOUR_EYES'],
      ['decline-tool-call-generate', () => r.post('/api/agents/ops-agent/decline-tool-call-generate', { data: target }), 403, 'FOUR_EYES'],
      // Ada's thread is not Rita's to write into.
      ['chat decision', () => r.post('/api/chat', { data: { id: threadId, messages: [], decision: { ...target, approved: true } } }), 404, 'NOT_FOUND'],
      ['send-tool-approval as Ada', () => r.post('/api/agents/ops-agent/send-tool-approval', { data: { threadId, resourceId: 'user-ada', approved: true } }), 403, 'FORBIDDEN'],
      ['send-tool-approval as herself', () => r.post('/api/agents/ops-agent/send-tool-approval', { data: { threadId, resourceId: 'reviewer-rita', approved: true } }), 404, 'NOT_FOUND'],
    ];
    for (const [name, send, status, code] of entrances) {
      const response = await send();
      expect(response.status(), name).toBe(status);
      expect((await response.json()).error.code, name).toBe(code);
    }
    await rita.close();
    // Ada, an end user, may not approve a reviewer-only call on her own thread either.
    const own = await request.post('/api/chat', { data: { id: threadId, messages: [], decision: { ...target, approved: true } } });
    expect(own.status()).toBe(403);
    expect((await own.json()).error.code).toBe('FOUR_EYES');
    expect(await db.query('SELECT 1 FROM decisions WHERE run_id = $1', [paused.runId])).toHaveLength(0);
    expect(await refundedOn(db, 'ord-2001')).toBe(0);

    const sam = await contextAs(browser, ACCOUNTS.sam);
    const approved = await sam.request.post(`/api/runs/${target.runId}/tool-calls/${target.toolCallId}/decision`, { data: { approved: true } });
    expect(approved.status()).toBe(200);
    expect(await approved.text()).toContain('Refunded $180 on ord-2001');
    await sam.close();
    expect(await db.query('SELECT actor_id FROM decisions WHERE run_id = $1', [paused.runId])).toEqual([{ actor_id: 'reviewer-sam' }]);
  });
});
