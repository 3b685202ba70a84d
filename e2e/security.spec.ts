import fs from 'node:fs';
import path from 'node:path';
import { ACCOUNTS, contextAs, expect, test } from './support';
import { parseSse } from './sse';
import { BASE_URL } from './config';

type Chunk = { type: string; runId: string; payload: Record<string, any> };

/** Every route handler under app/api and the HTTP methods it exports, found on disk. */
function routeHandlers(): { path: string; methods: string[] }[] {
  const out: { path: string; methods: string[] }[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'route.ts') {
        const source = fs.readFileSync(full, 'utf8');
        const methods = [...source.matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]);
        const url = path
          .relative('app', path.dirname(full))
          .split(path.sep)
          .map((segment) => (segment.startsWith('[') ? 'x' : segment))
          .join('/');
        out.push({ path: `/${url}`, methods });
      }
    }
  };
  walk('app/api');
  return out;
}

test.describe('sign-in and roles', () => {
  test('sign in with email and password; the session cookie is httpOnly and lives in PostgreSQL; sign out ends it', async ({ browser, db }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto('/inbox');
    await expect(page).toHaveURL(/\/sign-in\?next=%2Finbox/);
    await page.getByTestId('sign-in-email').fill(ACCOUNTS.rita);
    await page.getByTestId('sign-in-password').fill('wrong password');
    await page.getByTestId('sign-in-submit').click();
    await expect(page.getByTestId('sign-in-error')).toBeVisible();
    await page.getByTestId('sign-in-password').fill('countersign-demo');
    await page.getByTestId('sign-in-submit').click();
    await expect(page).toHaveURL(/\/inbox$/);
    await expect(page.getByTestId('signed-in-as')).toContainText('Rita');

    const cookie = (await context.cookies()).find((c) => c.name.includes('session_token'));
    expect(cookie?.httpOnly).toBe(true);
    const token = decodeURIComponent(cookie!.value).split('.')[0];
    expect(await db.query('SELECT user_id FROM sessions WHERE token = $1', [token])).toEqual([{ user_id: 'reviewer-rita' }]);

    await page.getByTestId('sign-out').first().click();
    await expect(page).toHaveURL(/\/sign-in/);
    expect(await db.query('SELECT 1 FROM sessions WHERE token = $1', [token])).toHaveLength(0);
    await page.goto('/inbox');
    await expect(page).toHaveURL(/\/sign-in/);
    await context.close();
  });

  test('a signed-out visit to a deep link goes to sign-in with that link, path and query, as next; signing in lands on the inbox’s thread view it named', async ({ browser, request }) => {
    const threadId = `sign-in-${crypto.randomUUID()}`;
    const started = await request.post('/api/agents/ops-agent/generate', { data: { messages: 'delete record rec-48', threadId, resourceId: 'user-ada' } });
    expect(started.status()).toBe(200);
    const context = await browser.newContext();
    const thread = `/inbox/threads/${threadId}`;
    // By HTTP, before any loading outline streams, whichever layout or page sends the visitor.
    for (const path of [thread, '/inbox?view=done&toolName=delete-record', '/audit?toolName=delete-record&kind=approval', `/audit/threads/${threadId}`, `/chat/${threadId}?agent=supervisor`, '/admin/users']) {
      const response = await context.request.get(path, { maxRedirects: 0 });
      expect(response.status(), path).toBe(307);
      expect(response.headers().location, path).toBe(`/sign-in?next=${encodeURIComponent(path)}`);
    }
    // The header that carries the path to the pages is the server's own: a client's is replaced.
    const spoofed = await context.request.get('/inbox', { maxRedirects: 0, headers: { 'x-countersign-requested-path': '//evil.test/' } });
    expect(spoofed.headers().location).toBe('/sign-in?next=%2Finbox');

    const page = await context.newPage();
    await page.goto(thread);
    await expect(page).toHaveURL(`/sign-in?next=${encodeURIComponent(thread)}`);
    await page.getByTestId('sign-in-email').fill(ACCOUNTS.rita);
    await page.getByTestId('sign-in-password').fill('countersign-demo');
    await page.getByTestId('sign-in-submit').click();
    await expect(page).toHaveURL(thread);
    await expect(page.getByTestId('thread-read-only')).toBeVisible();
    await expect(page.getByTestId('transcript-card')).toContainText('waiting for a decision');
    await context.close();
  });

  test('sign-in never sends anyone to another site: next=//host, /\\host and a full URL all return to /', async ({ browser }) => {
    const ada = await contextAs(browser, ACCOUNTS.ada);
    // Signed in already, /sign-in redirects straight to next, by HTTP.
    for (const next of ['//evil.test/x', '/\\evil.test/x', '/\t/evil.test/x', 'https://evil.test/x']) {
      const response = await ada.request.get(`/sign-in?next=${encodeURIComponent(next)}`, { maxRedirects: 0 });
      expect(response.status(), next).toBe(307);
      expect(response.headers().location, next).toBe('/');
    }
    expect((await ada.request.get(`/sign-in?next=${encodeURIComponent('/inbox?view=done')}`, { maxRedirects: 0 })).headers().location).toBe('/inbox?view=done');
    await ada.close();

    // Signing in through the form with such a next stays on this site.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`/sign-in?next=${encodeURIComponent('/\\evil.test/x')}`);
    await page.getByTestId('sign-in-email').fill(ACCOUNTS.ada);
    await page.getByTestId('sign-in-password').fill('countersign-demo');
    await page.getByTestId('sign-in-submit').click();
    await expect(page.getByTestId('composer-input')).toBeVisible();
    expect(new URL(page.url()).origin).toBe(new URL(BASE_URL).origin);
    await context.close();
  });

  test('the inbox is for reviewers and admins, the audit for admins — pages and APIs alike', async ({ browser, page, request }) => {
    await page.goto('/inbox');
    await expect(page).toHaveURL(/\/forbidden/);
    expect((await request.get('/api/inbox')).status()).toBe(403);
    expect((await request.get('/api/audit')).status()).toBe(403);

    const rita = await contextAs(browser, ACCOUNTS.rita);
    expect((await rita.request.get('/api/inbox')).status()).toBe(200);
    expect((await rita.request.get('/api/audit')).status()).toBe(403);
    const ritaPage = await rita.newPage();
    await ritaPage.goto('/audit');
    await expect(ritaPage).toHaveURL(/\/forbidden/);
    await rita.close();

    const alex = await contextAs(browser, ACCOUNTS.alex);
    expect((await alex.request.get('/api/audit')).status()).toBe(200);
    expect((await alex.request.get('/api/inbox')).status()).toBe(200);
    const alexPage = await alex.newPage();
    await alexPage.goto('/audit');
    await expect(alexPage.getByRole('heading', { name: 'Audit' })).toBeVisible();
    await alex.close();
  });

  test('four-eyes: a refund above 100 refuses the requester and a reviewer who asked for it themself', async ({ browser, chat, db, page, request }) => {
    await chat.open();
    await chat.send('refund order ord-1042 for 250');
    const card = chat.approvalCard('issue-refund');
    await expect(card).toHaveAttribute('data-state', 'pending');
    await expect(card.getByTestId('approve-button')).toHaveCount(0);
    await expect(page.getByTestId('chat-waiting')).toBeVisible();
    const [mine] = (await db.pendingCalls({ toolName: 'issue-refund', status: 'pending' })).slice(-1);
    const own = await request.post(`/api/runs/${mine.run_id}/tool-calls/${mine.tool_call_id}/decision`, { data: { approved: true } });
    expect(own.status()).toBe(403);
    expect((await own.json()).error.code).toBe('FOUR_EYES');

    // Rita asks for a refund herself; she may not approve it, Sam may.
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const started = await rita.request.post('/api/agents/ops-agent/stream', {
      data: { messages: 'refund order ord-2001 for 150', threadId: `four-eyes-${crypto.randomUUID()}`, resourceId: 'reviewer-rita' },
    });
    const approval = (await parseSse<Chunk>(await started.body())).find((chunk) => chunk.type === 'tool-call-approval')!;
    const self = await rita.request.post(`/api/runs/${approval.runId}/tool-calls/${approval.payload.toolCallId}/decision`, { data: { approved: true } });
    expect(self.status()).toBe(403);
    expect((await self.json()).error.code).toBe('FOUR_EYES');
    await rita.close();
    const sam = await contextAs(browser, ACCOUNTS.sam);
    const other = await sam.request.post(`/api/runs/${approval.runId}/tool-calls/${approval.payload.toolCallId}/decision`, { data: { approved: true } });
    expect(other.status()).toBe(200);
    expect(await other.text()).toContain('Refunded $150 on ord-2001');
    await sam.close();
  });
});

test.describe('no way in', () => {
  test('every route handler under app/api answers 401 without a session (sign-in, health and the API description excepted)', async ({ playwright, baseURL }) => {
    const anonymous = await playwright.request.newContext({ baseURL });
    const handlers = routeHandlers();
    expect(handlers.length).toBeGreaterThan(15);
    // Public on purpose: the health check, and the OpenAPI document (like the /docs/api page it
    // feeds, it describes routes and holds no data).
    const PUBLIC = ['/api/health', '/api/openapi.json'];
    for (const path of PUBLIC) {
      expect(handlers.map((handler) => handler.path)).toContain(path);
      expect((await anonymous.get(path)).status(), path).toBe(200);
    }
    let checked = 0;
    for (const handler of handlers) {
      if (handler.path.startsWith('/api/auth/') || PUBLIC.includes(handler.path)) continue;
      for (const method of handler.methods) {
        const response = await anonymous.fetch(handler.path, { method, data: method === 'GET' ? undefined : {} });
        expect(response.status(), `${method} ${handler.path}`).toBe(401);
        expect((await response.json()).error.code, `${method} ${handler.path}`).toBe('UNAUTHENTICATED');
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(15);
    await anonymous.dispose();
  });

  test('a method a route does not serve answers 405 METHOD_NOT_ALLOWED, with an Allow header naming those it does', async ({ playwright, baseURL }) => {
    const anonymous = await playwright.request.newContext({ baseURL });
    const asked: Promise<void>[] = [];
    for (const handler of routeHandlers()) {
      // better-auth's routes are its own; the catch-all for unknown paths takes every method (404).
      if (handler.path.startsWith('/api/auth/') || handler.path === '/api/x') continue;
      const allow = [...handler.methods, ...(handler.methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((other) => !handler.methods.includes(other))) {
        asked.push(
          anonymous.fetch(handler.path, { method, data: method === 'GET' ? undefined : {} }).then(async (response) => {
            expect(response.status(), `${method} ${handler.path}`).toBe(405);
            expect(response.headers()['allow'], `${method} ${handler.path}`).toBe(allow);
            expect((await response.json()).error.code, `${method} ${handler.path}`).toBe('METHOD_NOT_ALLOWED');
          }),
        );
      }
      asked.push(
        anonymous.fetch(handler.path, { method: 'OPTIONS' }).then((response) => {
          expect(response.status(), `OPTIONS ${handler.path}`).toBe(204);
          expect(response.headers()['allow'], `OPTIONS ${handler.path}`).toBe(allow);
        }),
      );
    }
    await Promise.all(asked);
    // 40 routes serve 55 of the 200 methods they could be asked for; each other one and OPTIONS were asked.
    expect(asked.length).toBeGreaterThan(150);
    await anonymous.dispose();
  });

  test("user B can neither read, decide nor resume user A's thread or run", async ({ browser, chat, db, page }) => {
    const threadId = await chat.open();
    await chat.send('delete record rec-38');
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'pending');
    const [call] = (await db.pendingCalls({ toolName: 'delete-record', status: 'pending' })).slice(-1);

    const ben = await contextAs(browser, ACCOUNTS.ben);
    const b = ben.request;
    const attempts = await Promise.all([
      b.get(`/api/chat/${threadId}`),
      b.get(`/api/chat/${threadId}/stream`),
      b.get(`/api/chat/${threadId}/events`),
      b.post('/api/chat', { data: { id: threadId, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] } }),
      b.post('/api/chat', { data: { id: threadId, messages: [], decision: { runId: call.run_id, toolCallId: call.tool_call_id, approved: true } } }),
      b.post(`/api/runs/${call.run_id}/tool-calls/${call.tool_call_id}/decision`, { data: { approved: true } }),
      b.post(`/api/runs/${call.run_id}/tool-calls/${call.tool_call_id}/resume`, { data: { resumeData: {} } }),
      b.post('/api/agents/ops-agent/approve-tool-call', { data: { runId: call.run_id, toolCallId: call.tool_call_id } }),
      b.post('/api/agents/ops-agent/decline-tool-call', { data: { runId: call.run_id } }),
      b.post('/api/agents/ops-agent/send-tool-approval', { data: { threadId, resourceId: 'user-ada', approved: true } }),
      b.post('/api/agents/ops-agent/stream', { data: { messages: 'hi', threadId, resourceId: 'user-ben' } }),
    ]);
    for (const response of attempts) expect([403, 404], response.url()).toContain(response.status());
    const listed = await (await b.get(`/api/agents/ops-agent/suspended-runs?threadId=${threadId}`)).json();
    expect(listed.total).toBe(0);
    const benPage = await ben.newPage();
    await benPage.goto(`/chat/${threadId}`);
    await expect(benPage.getByTestId('not-found')).toBeVisible();
    await expect(benPage.getByText('delete record rec-38')).toHaveCount(0);
    await ben.close();

    expect(await db.recordExists('rec-38')).toBe(true);
    expect((await db.pendingCalls({ toolName: 'delete-record', status: 'pending' })).map((row) => row.tool_call_id)).toContain(call.tool_call_id);
    await page.reload();
    await expect(chat.approvalCard('delete-record')).toHaveAttribute('data-state', 'pending');
  });
});

test.describe('audit', () => {
  test('one entry per decision and resume, with actor, role, fingerprint, args before and after, and reason; nothing can change it', async ({ browser, request, db }) => {
    const threadId = `audit-${crypto.randomUUID()}`;
    const generate = async (messages: string) =>
      (await request.post('/api/agents/ops-agent/generate', { data: { messages, threadId, resourceId: 'user-ada' } })).json();
    const one = await generate('/tool send-email {"to":"a@example.com","subject":"audit one","body":"x"}');
    const two = await generate('/tool send-email {"to":"b@example.com","subject":"audit two","body":"x"}');
    const three = await generate("what's the weather?");

    const rita = await contextAs(browser, ACCOUNTS.rita);
    const decide = (run: { runId: string; suspendedToolCalls: { toolCallId: string }[] }, kind: string, data: object) =>
      rita.request.post(`/api/runs/${run.runId}/tool-calls/${run.suspendedToolCalls[0].toolCallId}/${kind}`, { data }).then((r) => r.text());
    await decide(one, 'decision', { approved: true, args: { to: 'a@example.com', subject: 'audit one (edited)', body: 'x' } });
    await decide(two, 'decision', { approved: false, reason: 'not to b' });
    await decide(three, 'resume', { resumeData: { city: 'Berlin' } });
    await rita.close();

    const alex = await contextAs(browser, ACCOUNTS.alex);
    const { entries } = await (await alex.request.get('/api/audit?actorId=reviewer-rita&limit=500')).json();
    const mine = entries.filter((entry: { runId: string }) => [one.runId, two.runId, three.runId].includes(entry.runId));
    expect(mine).toHaveLength(3);
    const byRun = Object.fromEntries(mine.map((entry: { runId: string }) => [entry.runId, entry]));
    expect(byRun[one.runId]).toMatchObject({
      kind: 'approval',
      actorId: 'reviewer-rita',
      actorRole: 'reviewer',
      args: { subject: 'audit one' },
      editedArgs: { subject: 'audit one (edited)' },
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      editedFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(byRun[two.runId]).toMatchObject({ kind: 'decline', approved: false, reason: 'not to b' });
    expect(byRun[three.runId]).toMatchObject({ kind: 'resume', resumeData: { city: 'Berlin' } });
    const csv = await (await alex.request.get('/api/audit?format=csv&actorId=reviewer-rita')).text();
    expect(csv.split('\r\n')[0]).toContain('actorId,actorName,actorEmail,actorRole,kind');
    expect(csv).toContain('not to b');
    const page = await alex.newPage();
    await page.goto(`/audit?actorId=reviewer-rita`);
    await expect(page.getByTestId('audit-row').first()).toBeVisible();
    await alex.close();

    // The database refuses to change or delete a decision.
    await expect(db.query(`UPDATE decisions SET reason = 'tampered' WHERE run_id = $1`, [two.runId])).rejects.toThrow(/append-only/);
    await expect(db.query(`DELETE FROM decisions WHERE run_id = $1`, [two.runId])).rejects.toThrow(/append-only/);
  });
});
