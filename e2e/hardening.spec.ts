import type { APIRequestContext } from '@playwright/test';
import { ACCOUNTS, contextAs, expect, sessionCookie, test, type Db } from './support';
import { startServer, type ExtraServer } from './servers';
import { BASE_URL, DEMO_PASSWORD, E2E_DATABASE_URL, extraPort } from './config';
import { Agent } from '../lib/agent/agent';
import { createOpsTools } from '../lib/demo/tools';
import { ScriptedModel } from '../lib/models/scripted';
import { createPrismaClient } from '../lib/store/db';
import { PrismaAgentStore } from '../lib/store/prisma-store';
import { parseSse } from './sse';

type Chunk = { type: string; runId: string; payload: Record<string, any> };

const userMessage = (text: string) => [{ role: 'user', parts: [{ type: 'text', text }] }];
const newId = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;
/** A JSON array nested `depth` levels deep, as text. */
const deepJson = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

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

/** Signs an API context in as a fresh account created for this test. */
async function signInAs(request: APIRequestContext, email: string, baseURL: string) {
  const response = await request.post(`${baseURL}/api/auth/sign-in/email`, { data: { email, password: DEMO_PASSWORD }, headers: { origin: baseURL } });
  expect(response.status(), `sign-in as ${email}`).toBe(200);
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

test.describe('audit', () => {
  test('rows name the real actor with their email; CSV cells starting with =, +, - or @ are neutralised', async ({ browser, request, db }) => {
    const threadId = newId('csv');
    const leads = ['=', '+', '-', '@'];
    const runs: string[] = [];
    for (const lead of leads) {
      const run = await (
        await request.post('/api/agents/ops-agent/generate', {
          data: { messages: `/tool send-email {"to":"a@example.com","subject":"csv ${lead}","body":"x"}`, threadId, resourceId: 'user-ada' },
        })
      ).json();
      runs.push(run.runId);
    }
    const rita = await contextAs(browser, ACCOUNTS.rita);
    for (const [index, lead] of leads.entries()) {
      const call = (await db.query('SELECT tool_call_id FROM pending_tool_calls WHERE run_id = $1', [runs[index]]))[0];
      const declined = await rita.request.post(`/api/runs/${runs[index]}/tool-calls/${call.tool_call_id}/decision`, {
        data: { approved: false, reason: `${lead}HYPERLINK("http://evil.example","x")` },
      });
      expect(declined.status()).toBe(200);
      await declined.text();
    }
    await rita.close();

    const alex = await contextAs(browser, ACCOUNTS.alex);
    const csv = await (await alex.request.get('/api/audit?format=csv&actorId=reviewer-rita&limit=500')).text();
    for (const lead of leads) {
      const cell = `${lead}HYPERLINK(""http://evil.example"",""x"")`;
      expect(csv, lead).toContain(`"'${cell}"`);
      expect(csv, lead).not.toContain(`,"${cell}"`);
    }
    // The JSON keeps the reason as written, and names actor and requester with their emails.
    const { entries } = await (await alex.request.get('/api/audit?actorId=reviewer-rita&limit=500')).json();
    const mine = entries.filter((entry: { runId: string }) => runs.includes(entry.runId));
    expect(mine).toHaveLength(4);
    for (const entry of mine) {
      expect(entry).toMatchObject({ actorId: 'reviewer-rita', actorEmail: 'rita@example.com', actorRole: 'reviewer', requester: 'user-ada', requesterEmail: 'ada@example.com' });
      expect(leads).toContain(entry.reason[0]);
    }
    await alex.close();
  });

  test('a user who names themself "Ada" is told apart by email in the inbox and the audit', async ({ browser, db, playwright, baseURL }) => {
    const mallory = await db.createAccount({ name: 'Mallory' });
    const api = await playwright.request.newContext({ baseURL });
    await signInAs(api, mallory.email, baseURL!);
    // Display names are free text: renaming oneself "Ada" is allowed.
    expect((await api.post('/api/auth/update-user', { data: { name: 'Ada' }, headers: { origin: baseURL! } })).status()).toBe(200);
    const threadId = newId('mallory');
    const asked = await (await api.post('/api/agents/ops-agent/generate', { data: { messages: '/tool send-email {"to":"boss@example.com","subject":"from ada","body":"x"}', threadId, resourceId: mallory.id } })).json();
    expect(asked.finishReason).toBe('suspended');
    await api.dispose();

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const inbox = await rita.newPage();
    await inbox.goto('/inbox');
    const row = inbox.locator(`[data-testid="inbox-row"][data-run-id="${asked.runId}"]`);
    // The row's summary line (the detail of a selected row sits inside the row too).
    await expect(row.getByTestId('person').first()).toContainText('Ada');
    await expect(row.getByTestId('person-email').first()).toHaveText(`<${mallory.email}>`);
    await row.click();
    await expect(inbox.getByTestId('person-email').filter({ hasText: mallory.email }).first()).toBeVisible();
    await inbox.getByTestId('inbox-approve').click();
    await expect(row).toHaveCount(0);
    await rita.close();

    const alex = await contextAs(browser, ACCOUNTS.alex);
    const audit = await alex.newPage();
    await audit.goto('/audit?actorId=reviewer-rita');
    const auditRow = audit.locator(`[data-testid="audit-row"][data-tool-call-id="${asked.suspendedToolCalls[0].toolCallId}"]`);
    await expect(auditRow.getByTestId('person-email')).toHaveText('<rita@example.com>');
    await auditRow.click();
    await expect(audit.getByRole('table').getByText(`<${mallory.email}>`)).toBeVisible();
    await alex.close();
  });
});

test.describe('direction controls', () => {
  test('Unicode direction controls: refused in model arguments, and shown, isolated and flagged wherever other text carries them', async ({ browser, chat, db, request }) => {
    // The runtime refuses them in a model's tool arguments outright: nothing waits, nothing runs.
    const threadId = await chat.open();
    await chat.send('/tool send-email {"to":"a@example.com","subject":"invoice\u202Efdp.exe","body":"x"}');
    await expect(chat.lastAssistant()).toContainText('U+202E');
    expect(await db.query(`SELECT 1 FROM pending_tool_calls WHERE thread_id = $1`, [threadId])).toHaveLength(0);
    // The thread's title (the person's own message) shows the control instead of obeying it.
    await expect(chat.page.getByTestId('chat-title')).toContainText('invoice⟪U+202E⟫');
    await expect(chat.page.getByTestId('thread-title').first()).toContainText('⟪U+202E⟫');
    expect(await chat.page.locator('body').innerText()).not.toContain('\u202E');

    // A reviewer's decline reason is free text: Ada's card and the audit show its control, flagged.
    const declineThread = newId('bidi');
    const paused = await (
      await request.post('/api/agents/ops-agent/generate', {
        data: { messages: '/tool send-email {"to":"a@example.com","subject":"bidi","body":"x"}', threadId: declineThread, resourceId: 'user-ada' },
      })
    ).json();
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const declined = await rita.request.post(`/api/runs/${paused.runId}/tool-calls/${paused.suspendedToolCalls[0].toolCallId}/decision`, {
      data: { approved: false, reason: 'see invoice\u202Efdp.exe' },
    });
    expect(declined.status()).toBe(200);
    await declined.text();
    await rita.close();
    await chat.page.goto(`/chat/${declineThread}`);
    const outcome = chat.approvalCard('send-email').getByTestId('approval-outcome');
    await expect(outcome).toContainText('see invoice⟪U+202E⟫fdp.exe');
    expect(await outcome.innerText()).not.toContain('\u202E');

    const alex = await contextAs(browser, ACCOUNTS.alex);
    const audit = await alex.newPage();
    await audit.goto('/audit?actorId=reviewer-rita');
    const row = audit.locator(`[data-testid="audit-row"][data-tool-call-id="${paused.suspendedToolCalls[0].toolCallId}"]`);
    await expect(row.getByTestId('bidi-warning')).toBeVisible();
    await expect(row).toContainText('see invoice⟪U+202E⟫fdp.exe');
    expect(await row.innerText()).not.toContain('\u202E');
    await alex.close();
  });
});

test.describe('headers', () => {
  const expectSecurityHeaders = (headers: Record<string, string>, what: string) => {
    expect(headers['content-security-policy'], what).toContain("frame-ancestors 'none'");
    expect(headers['x-frame-options'], what).toBe('DENY');
    expect(headers['x-content-type-options'], what).toBe('nosniff');
    expect(headers['referrer-policy'], what).toBe('strict-origin-when-cross-origin');
    // The e2e server is a production build.
    expect(headers['strict-transport-security'], what).toMatch(/^max-age=\d{7,}; includeSubDomains$/);
    expect(headers['x-powered-by'], what).toBeUndefined();
  };

  test('pages, API answers, errors, auth routes and live streams send the security headers and no X-Powered-By', async ({ playwright, baseURL, browser }) => {
    const anonymous = await playwright.request.newContext({ baseURL });
    const checks: [string, () => Promise<import('@playwright/test').APIResponse>, number][] = [
      ['sign-in page', () => anonymous.get('/sign-in'), 200],
      ['home redirect', () => anonymous.get('/', { maxRedirects: 0 }), 307],
      ['health', () => anonymous.get('/api/health'), 200],
      ['401 error', () => anonymous.get('/api/inbox'), 401],
      ['unknown API route', () => anonymous.post('/api/nothing', { data: {} }), 401],
      ['auth route', () => anonymous.get('/api/auth/get-session'), 200],
    ];
    for (const [what, send, status] of checks) {
      const response = await send();
      expect(response.status(), what).toBe(status);
      expectSecurityHeaders(response.headers(), what);
    }
    await anonymous.dispose();
    // A live stream (SSE) and a signed-in page too.
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const cookie = (await rita.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const controller = new AbortController();
    const events = await fetch(`${baseURL}/api/inbox/events`, { headers: { cookie }, signal: controller.signal });
    expect(events.status).toBe(200);
    expectSecurityHeaders(Object.fromEntries(events.headers), 'inbox events');
    controller.abort();
    const inbox = await rita.request.get('/inbox');
    expect(inbox.status()).toBe(200);
    expectSecurityHeaders(inbox.headers(), 'inbox page');
    await rita.close();
  });

  test('a foreign page cannot frame the inbox (clickjacking)', async ({ browser, baseURL }) => {
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const page = await rita.newPage();
    // Also check the same page loads fine on its own.
    await page.goto('/inbox');
    await expect(page.getByRole('heading', { name: /inbox/i }).first()).toBeVisible();
    await page.goto('about:blank');
    await page.setContent(`<h1>Win a prize</h1><iframe id="victim" src="${baseURL}/inbox" width="800" height="600"></iframe>`, { waitUntil: 'load' });
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
    expect(frame).toBeDefined();
    // Blocked by the browser: the frame holds an error page, none of the app.
    await expect
      .poll(async () => frame.evaluate(() => document.querySelectorAll('[data-testid]').length).catch(() => 0))
      .toBe(0);
    expect(await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '')).not.toMatch(/Inbox|Sign in/);
    await rita.close();
  });

  test('event streams are sent uncompressed and marked no-transform, even to a client that accepts gzip', async ({ browser, baseURL }) => {
    const ada = await contextAs(browser, ACCOUNTS.ada);
    const cookie = (await ada.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const headers = { cookie, origin: baseURL!, 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' };
    const threadId = `gzip-${crypto.randomUUID()}`;
    const streams: [string, string, RequestInit][] = [
      ['chat (UI message stream)', '/api/chat', { method: 'POST', body: JSON.stringify({ id: threadId, messages: [{ id: `m-${threadId}`, role: 'user', parts: [{ type: 'text', text: 'look up customer cus-1' }] }] }) }],
      ['agents stream (runtime chunks)', '/api/agents/ops-agent/stream', { method: 'POST', body: JSON.stringify({ messages: 'look up customer cus-2', threadId: `${threadId}-agents`, resourceId: 'user-ada' }) }],
      ['thread notices', `/api/chat/${threadId}/events`, { method: 'GET' }],
    ];
    for (const [what, path, init] of streams) {
      const controller = new AbortController();
      const response = await fetch(`${baseURL}${path}`, { ...init, headers, signal: controller.signal });
      expect(response.status, what).toBe(200);
      expect(response.headers.get('content-type'), what).toContain('text/event-stream');
      expect(response.headers.get('content-encoding'), what).toBeNull();
      expect(response.headers.get('cache-control'), what).toContain('no-transform');
      if (!path.endsWith('/events')) expect(await response.text(), what).toContain('data: ');
      controller.abort();
    }
    await ada.close();
  });
});

test.describe('live streams', () => {
  test('thread events answer 404 for a thread id nobody has used, and stay 404 for others once it exists', async ({ browser, request, baseURL }) => {
    const threadId = newId('events');
    const ben = await contextAs(browser, ACCOUNTS.ben);
    const before = await ben.request.get(`/api/chat/${threadId}/events`);
    expect(before.status()).toBe(404);
    expect((await before.json()).error.code).toBe('NOT_FOUND');
    expect((await request.get(`/api/chat/${threadId}/events`)).status()).toBe(404);

    // A title of its own: thread titles are unique per person, and other tests look for theirs.
    await request.post('/api/agents/ops-agent/generate', { data: { messages: `look up customer cus-1 (events ${threadId})`, threadId, resourceId: 'user-ada' } });
    const cookie = await sessionCookie(ACCOUNTS.ada);
    const controller = new AbortController();
    const mine = await fetch(`${baseURL}/api/chat/${threadId}/events`, { headers: { cookie }, signal: controller.signal });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
    expect((await ben.request.get(`/api/chat/${threadId}/events`)).status()).toBe(404);
    await ben.close();
  });

  test('a new chat still goes live once its thread exists (the feed opens after the first answer)', async ({ browser, chat }) => {
    const threadId = await chat.open();
    await chat.send('refund order ord-1043 for 150');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    const sam = await contextAs(browser, ACCOUNTS.sam);
    const inbox = await sam.newPage();
    await inbox.goto('/inbox');
    const row = inbox.locator('[data-testid="inbox-row"][data-tool-name="issue-refund"]').filter({ hasText: 'ord-1043' }).last();
    await row.click();
    await inbox.getByTestId('inbox-decline').click();
    await inbox.getByTestId('inbox-decline-reason').fill('too much');
    await inbox.getByTestId('inbox-decline-confirm').click();
    await expect(row).toHaveCount(0);
    await sam.close();
    // Ada's open chat (never reloaded) shows the decision by itself.
    await expect(card).toHaveAttribute('data-state', 'declined');
    expect(threadId).toBeTruthy();
  });

  test('deep tool arguments from the model are refused before any approval', async ({ request, db }) => {
    const result = await (
      await request.post('/api/agents/ops-agent/generate', {
        data: { messages: `/tool delete-record {"id":${deepJson(100)}}`, threadId: newId('deep'), resourceId: 'user-ada' },
      })
    ).json();
    expect(result.finishReason).toBe('stop');
    expect(result.text).toContain('nested more than 16 levels');
    expect(await db.query('SELECT 1 FROM pending_tool_calls WHERE run_id = $1', [result.runId])).toHaveLength(0);
  });
});

test.describe('limits and sign-in, on servers with tight settings', () => {
  let tight: ExtraServer;
  test.beforeAll(async () => {
    tight = await startServer({
      port: extraPort(8),
      env: {
        SIGN_UP_ENABLED: 'true',
        SIGN_UP_EMAIL_DOMAINS: 'example.org',
        SSE_MAX_CONNECTIONS_PER_USER: '2',
        AGENTS_RATE_LIMIT_PER_MINUTE: '3',
        RUNS_RATE_LIMIT_PER_MINUTE: '3',
      },
    });
  });
  test.afterAll(async () => {
    await tight?.kill();
  });

  test('SSE connections per person are capped; a closed one frees its slot', async ({ db }) => {
    const reviewer = await db.createAccount({ role: 'reviewer' });
    const cookie = await sessionCookie(reviewer.email, tight.url);
    const open = async () => {
      const controller = new AbortController();
      const response = await fetch(`${tight.url}/api/inbox/events`, { headers: { cookie }, signal: controller.signal });
      return { response, close: () => controller.abort() };
    };
    const first = await open();
    const second = await open();
    expect([first.response.status, second.response.status]).toEqual([200, 200]);
    const third = await open();
    expect(third.response.status).toBe(429);
    expect((await third.response.json()).error.code).toBe('TOO_MANY_STREAMS');
    first.close();
    await expect
      .poll(async () => {
        const again = await open();
        again.close();
        return again.response.status;
      })
      .toBe(200);
    second.close();
  });

  test('the cap counts all of a person\'s live streams on the server, whichever route opened them', async ({ db }) => {
    const reviewer = await db.createAccount({ role: 'reviewer' });
    const threadId = newId('slots');
    await db.query('INSERT INTO threads (id, resource_id, agent_id, title) VALUES ($1, $2, $3, $4)', [threadId, reviewer.id, 'ops-agent', 'Slots']);
    const cookie = await sessionCookie(reviewer.email, tight.url);
    const open = async (path: string) => {
      const controller = new AbortController();
      const response = await fetch(`${tight.url}${path}`, { headers: { cookie }, signal: controller.signal });
      return { response, close: () => controller.abort() };
    };
    // A segment streaming on the thread (a `start` with no `finish`), so its stream can be resumed.
    const runId = newId('slots-run');
    const messageId = newId('slots-message');
    await db.query(
      `INSERT INTO runs (id, thread_id, resource_id, requested_by, agent_id, message_id, status, lease_expires_at)
       VALUES ($1, $2, $3, $3, 'ops-agent', $4, 'running', now() + interval '1 hour')`,
      [runId, threadId, reviewer.id, messageId],
    );
    await db.query('INSERT INTO run_events (run_id, chunk) VALUES ($1, $2)', [
      runId,
      JSON.stringify({ type: 'start', runId, from: 'AGENT', payload: { messageId, threadId } }),
    ]);
    // A count kept per copy of the module (each of Next's server bundles can hold one) would allow 2 per copy.
    const inbox = await open('/api/inbox/events');
    const resumed = await open(`/api/chat/${threadId}/stream`);
    expect([inbox.response.status, resumed.response.status]).toEqual([200, 200]);
    const refused = [await open('/api/inbox/events'), await open(`/api/chat/${threadId}/events`), await open(`/api/chat/${threadId}/stream`)];
    expect(refused.map((stream) => stream.response.status)).toEqual([429, 429, 429]);
    for (const stream of [inbox, resumed, ...refused]) stream.close();
  });

  test('/api/agents/* and /api/runs/* are rate-limited per person with 429 and Retry-After', async ({ db }) => {
    const person = await db.createAccount();
    const cookie = await sessionCookie(person.email, tight.url);
    // The runs group is counted by someone else, who first needs a run of their own (one agents request).
    const decider = await db.createAccount();
    const deciderCookie = await sessionCookie(decider.email, tight.url);
    const paused = await (
      await fetch(`${tight.url}/api/agents/ops-agent/generate`, {
        method: 'POST',
        headers: { cookie: deciderCookie, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: '/tool send-email {"to":"a@example.com","subject":"limit","body":"x"}', threadId: newId('limit'), resourceId: decider.id }),
      })
    ).json();
    const call = paused.suspendedToolCalls[0];
    let sent = 0;
    for (const [group, send] of [
      ['agents', () => fetch(`${tight.url}/api/agents/ops-agent/suspended-runs`, { headers: { cookie } })],
      [
        'runs',
        // A stale fingerprint: well-formed and on a reachable run, refused without any change.
        () =>
          fetch(`${tight.url}/api/runs/${paused.runId}/tool-calls/${call.toolCallId}/decision`, {
            method: 'POST',
            headers: { cookie: deciderCookie, 'content-type': 'application/json', 'idempotency-key': `limit-${paused.runId}-${(sent += 1)}` },
            body: JSON.stringify({ approved: true, fingerprint: 'stale' }),
          }),
      ],
    ] as const) {
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 8 && !limited; i += 1) {
        const response = await send();
        statuses.push(response.status);
        if (response.status === 429) limited = response;
        else await response.text();
      }
      expect(statuses[0], group).toBe(group === 'agents' ? 200 : 409);
      expect(limited, `${group}: ${statuses.join(',')}`).toBeDefined();
      expect((await limited!.json()).error.code).toBe('RATE_LIMITED');
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // An answered request's Idempotency-Key is kept; a rate-limited one's is not (its retry runs anew).
    const keys = await db.query<{ key: string }>(`SELECT key FROM idempotency_keys WHERE key LIKE $1 ORDER BY key`, [`limit-${paused.runId}-%`]);
    expect(keys.map((row) => row.key)).not.toContain(`limit-${paused.runId}-${sent}`);
    expect(keys.length).toBe(sent - 1);
  });

  test('sign-up is off by default with a clear code; on a server that enables it, only allowed domains, and always role user', async ({ db, baseURL }) => {
    const signUp = (url: string, email: string) =>
      fetch(`${url}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ email, password: 'a-long-password', name: 'New person', role: 'admin' }),
      });
    const closedEmail = `new-${crypto.randomUUID()}@example.org`;
    const closed = await signUp(baseURL!, closedEmail);
    expect(closed.status).toBe(403);
    const closedBody = await closed.json();
    expect(closedBody.error.code).toBe('SIGN_UP_DISABLED');
    expect(closedBody.code).toBe('SIGN_UP_DISABLED');
    expect(closed.headers.get('set-cookie')).toBeNull();

    for (const email of [`x-${crypto.randomUUID()}@evil.example`, `x-${crypto.randomUUID()}@sub.example.org`]) {
      const refused = await signUp(tight.url, email);
      expect(refused.status, email).toBe(403);
      expect((await refused.json()).error.code, email).toBe('EMAIL_DOMAIN_NOT_ALLOWED');
      expect(await db.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);
    }

    const email = `new-${crypto.randomUUID()}@example.org`;
    const opened = await signUp(tight.url, email);
    expect(opened.status).toBe(200);
    expect(await db.query('SELECT role FROM users WHERE email = $1', [email])).toEqual([{ role: 'user' }]);
    const cookie = opened.headers
      .getSetCookie()
      .map((value) => value.split(';')[0])
      .join('; ');
    expect((await fetch(`${tight.url}/api/inbox`, { headers: { cookie } })).status).toBe(403);
    expect(await db.query('SELECT 1 FROM users WHERE email = $1', [closedEmail])).toHaveLength(0);
  });

  test('failed sign-ins lock the account on every server, however X-Forwarded-For changes; a success clears the count', async ({ db, baseURL }) => {
    const attempt = (url: string, email: string, password: string, ip: string) =>
      fetch(`${url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url, 'x-forwarded-for': ip },
        body: JSON.stringify({ email, password }),
      });
    const victim = await db.createAccount();
    for (let i = 0; i < 5; i += 1) {
      expect((await attempt(baseURL!, victim.email, 'wrong password', `198.51.100.${i}`)).status).toBe(401);
    }
    // Locked: even the right password is refused, here and on the other server (counted in PostgreSQL).
    for (const url of [baseURL!, tight.url]) {
      const locked = await attempt(url, victim.email.toUpperCase(), DEMO_PASSWORD, '198.51.100.99');
      expect(locked.status, url).toBe(429);
      expect((await locked.json()).error.code).toBe('ACCOUNT_LOCKED');
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const [row] = await db.query('SELECT failures, locked_until > now() AS locked FROM sign_in_failures WHERE email = $1', [victim.email]);
    expect(row).toEqual({ failures: 5, locked: true });

    const lucky = await db.createAccount();
    for (let i = 0; i < 4; i += 1) expect((await attempt(tight.url, lucky.email, 'wrong password', '198.51.100.1')).status).toBe(401);
    expect((await attempt(baseURL!, lucky.email, DEMO_PASSWORD, '198.51.100.1')).status).toBe(200);
    expect(await db.query('SELECT 1 FROM sign_in_failures WHERE email = $1', [lucky.email])).toHaveLength(0);
  });

  test('changing a password signs out the other sessions by default', async ({ db, baseURL }) => {
    for (const keep of [undefined, false]) {
      const person = await db.createAccount();
      const [a, b] = [await sessionCookie(person.email), await sessionCookie(person.email)];
      const changed = await fetch(`${baseURL}/api/auth/change-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: baseURL!, cookie: a },
        body: JSON.stringify({ currentPassword: DEMO_PASSWORD, newPassword: 'another-long-password', ...(keep === false ? { revokeOtherSessions: false } : {}) }),
      });
      expect(changed.status).toBe(200);
      const other = await fetch(`${baseURL}/api/agents/ops-agent/suspended-runs`, { headers: { cookie: b } });
      expect(other.status, `revokeOtherSessions ${keep}`).toBe(keep === false ? 200 : 401);
      const sessions = await db.query('SELECT 1 FROM sessions WHERE user_id = $1', [person.id]);
      expect(sessions.length).toBe(keep === false ? 2 : 1);
    }
  });
});

test('a server with an invalid setting exits at start-up instead of serving', async () => {
  const started = Date.now();
  await expect(startServer({ port: extraPort(9), env: { SIGN_UP_ENABLED: 'yes' } })).rejects.toThrow(/did not start/);
  // It exited by itself (startServer gives up on a live but silent server only after 30 s).
  expect(Date.now() - started).toBeLessThan(20_000);
});

test.describe('sign-in limits per client address, behind a trusted proxy', () => {
  let proxied: ExtraServer;
  test.beforeAll(async () => {
    proxied = await startServer({
      port: extraPort(9),
      env: { TRUSTED_PROXIES: '127.0.0.1', SIGN_IN_RATE_LIMIT_PER_MINUTE: '2', COUNTERSIGN_AUTH_RATE_LIMIT: 'on' },
    });
  });
  test.afterAll(async () => {
    await proxied?.kill();
  });

  test('attempts are counted per forwarded address in PostgreSQL; another address is not affected', async ({ db }) => {
    const attempt = (ip: string) =>
      fetch(`${proxied.url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: proxied.url, 'x-forwarded-for': ip },
        // A different unknown account each time: the per-account lockout plays no part here.
        body: JSON.stringify({ email: `nobody-${crypto.randomUUID()}@example.com`, password: 'wrong password' }),
      });
    const ip = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await attempt(ip)).status);
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(4);
    expect((await attempt('192.0.2.77')).status).toBe(401);
    expect(await db.query(`SELECT 1 FROM rate_limits WHERE key LIKE $1`, [`auth:${ip}|%`])).not.toHaveLength(0);
  });
});
