import type { APIRequestContext } from '@playwright/test';
import { ACCOUNTS, contextAs, expect, sessionCookie, test } from './support';
import { DEMO_PASSWORD } from './config';

// The audit's names and CSV cells, Unicode direction controls, security headers, and live streams.
// (Who may act: who-acts.spec.ts; limits and sign-in throttles: limits.spec.ts.)

const newId = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;
/** A JSON array nested `depth` levels deep, as text. */
const deepJson = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Signs an API context in as a fresh account created for this test. */
async function signInAs(request: APIRequestContext, email: string, baseURL: string) {
  const response = await request.post(`${baseURL}/api/auth/sign-in/email`, { data: { email, password: DEMO_PASSWORD }, headers: { origin: baseURL } });
  expect(response.status(), `sign-in as ${email}`).toBe(200);
}

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
