import type { APIResponse } from '@playwright/test';
import { ACCOUNTS, expect, sessionCookie, test } from './support';
import { startServer } from './servers';
import { extraPort } from './config';

// What a client sends that it should not: malformed or oversize bodies, a model's oversize tool
// arguments, cross-origin writes and too many chat turns. Each gets a clear error and changes nothing.
// (Sign-in, roles, access between users and the audit log: security.spec.ts.)

test.describe('bad input changes nothing', () => {
  test('invalid JSON, oversize bodies, wrong types and too-long messages get clear errors and leave every table as it was', async ({ request, db, baseURL }) => {
    const tables = (await db.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).map((row) => row.tablename);
    // Every table's row count in one statement (one client runs one query at a time).
    const counts = async () => (await db.query(`SELECT ${tables.map((table) => `(SELECT count(*)::int FROM "${table}") AS "${table}"`).join(', ')}`))[0];
    // Signing in writes a session row: do it before counting.
    const cookie = await sessionCookie(ACCOUNTS.ada);
    const before = await counts();

    const cases: { name: string; send: () => Promise<APIResponse>; status: number; code: string }[] = [
      { name: 'invalid JSON', send: () => request.post('/api/chat', { headers: { 'content-type': 'application/json' }, data: Buffer.from('{"id":') }), status: 400, code: 'INVALID_JSON' },
      { name: 'oversize body', send: () => request.post('/api/chat', { data: { id: 't', messages: [], pad: 'x'.repeat(300 * 1024) } }), status: 413, code: 'BODY_TOO_LARGE' },
      { name: 'wrong types', send: () => request.post('/api/chat', { data: { id: 42, messages: 'hi' } }), status: 400, code: 'BAD_REQUEST' },
      {
        name: 'too-long message',
        send: () => request.post('/api/chat', { data: { id: `bad-${crypto.randomUUID()}`, messages: [{ role: 'user', parts: [{ type: 'text', text: 'x'.repeat(9_000) }] }] } }),
        status: 413,
        code: 'MESSAGE_TOO_LONG',
      },
      { name: 'empty message', send: () => request.post('/api/chat', { data: { id: 't2', messages: [{ role: 'user', parts: [{ type: 'text', text: '   ' }] }] } }), status: 400, code: 'EMPTY_MESSAGE' },
      { name: 'text part that is not text', send: () => request.post('/api/chat', { data: { id: 't3', messages: [{ role: 'user', parts: [{ type: 'text', text: 42 }] }] } }), status: 400, code: 'BAD_REQUEST' },
      { name: 'decision with wrong types', send: () => request.post('/api/runs/r/tool-calls/c/decision', { data: { approved: 'yes' } }), status: 400, code: 'BAD_REQUEST' },
      // A misspelt field is refused, not dropped: "reasn" would decline without the reason the model reads.
      { name: 'decision with a misspelt field', send: () => request.post('/api/runs/r/tool-calls/c/decision', { data: { approved: false, reasn: 'too high' } }), status: 400, code: 'BAD_REQUEST' },
      { name: 'resume with an unknown field', send: () => request.post('/api/runs/r/tool-calls/c/resume', { data: { resumeData: {}, data: {} } }), status: 400, code: 'BAD_REQUEST' },
      { name: 'decision on an unknown run', send: () => request.post('/api/runs/nope/tool-calls/nope/decision', { data: { approved: true } }), status: 404, code: 'NO_SNAPSHOT_FOUND' },
      { name: 'resume of an unknown run', send: () => request.post('/api/runs/nope/tool-calls/nope/resume', { data: { resumeData: { city: 'Oslo' } } }), status: 404, code: 'NO_SNAPSHOT_FOUND' },
      { name: 'agents stream without ids', send: () => request.post('/api/agents/ops-agent/stream', { data: { messages: 'hi' } }), status: 400, code: 'BAD_REQUEST' },
      {
        name: 'NUL character',
        send: () => request.post('/api/chat', { data: { id: `nul-${crypto.randomUUID()}`, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi \u0000 there' }] }] } }),
        status: 400,
        code: 'INVALID_TEXT',
      },
      {
        name: 'lone surrogate',
        send: () => request.post('/api/chat', { data: { id: `sur-${crypto.randomUUID()}`, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi \ud800 there' }] }] } }),
        status: 400,
        code: 'INVALID_TEXT',
      },
      { name: 'unknown API route', send: () => request.post('/api/nothing/here', { data: {} }), status: 404, code: 'NOT_FOUND' },
      // A thread id the chat page could not open (it would be a broken link in the sidebar).
      ...['../../etc', 'a b?c#d%', 'x'.repeat(101)].map((id) => ({
        name: `thread id ${JSON.stringify(id.slice(0, 20))}`,
        send: () => request.post('/api/chat', { data: { id, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] } }),
        status: 400,
        code: 'BAD_REQUEST',
      })),
      { name: 'resume without resumeData', send: () => request.post('/api/runs/x/tool-calls/y/resume', { data: {} }), status: 400, code: 'BAD_REQUEST' },
      // JSON nested 100,000 levels deep (200 KB): refused before anything walks it.
      ...[
        ['/api/chat', (deep: string) => `{"id":"deep","messages":${deep}}`],
        ['/api/agents/ops-agent/stream', (deep: string) => `{"messages":"hi","threadId":"t","resourceId":"user-ada","requestContext":{"a":${deep}}}`],
        ['/api/runs/x/tool-calls/y/decision', (deep: string) => `{"approved":true,"args":${deep}}`],
        ['/api/runs/x/tool-calls/y/resume', (deep: string) => `{"resumeData":${deep}}`],
        ['/api/auth/sign-in/email', (deep: string) => `{"email":"ada@example.com","password":${deep}}`],
      ].map(([path, body]) => ({
        name: `deeply nested JSON to ${path}`,
        send: () =>
          request.post(path as string, {
            headers: { 'content-type': 'application/json' },
            data: Buffer.from((body as (deep: string) => string)('['.repeat(100_000) + ']'.repeat(100_000))),
          }),
        status: 400,
        code: 'JSON_TOO_DEEP',
      })),
    ];
    for (const c of cases) {
      const response = await c.send();
      expect(response.status(), c.name).toBe(c.status);
      const error = (await response.json()).error;
      expect(error, c.name).toMatchObject({ code: c.code, message: expect.any(String) });
    }
    // A chunked upload without Content-Length is cut off at the limit, not buffered whole.
    const chunk = new Uint8Array(64 * 1024).fill(32);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 200) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const chunked = await fetch(`${baseURL}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(sent).toBeLessThan(200);
    expect(await counts()).toEqual(before);
  });

  test('oversize tool arguments from the model are refused before any approval or execution', async ({ request, db }) => {
    // 3,000 three-byte characters: a short message, but 9 KB of arguments.
    const huge = '€'.repeat(3_000);
    const result = await (
      await request.post('/api/agents/ops-agent/generate', {
        data: { messages: `/tool delete-record {"id":"${huge}"}`, threadId: `big-${crypto.randomUUID()}`, resourceId: 'user-ada' },
      })
    ).json();
    expect(result.finishReason).toBe('stop');
    expect(result.suspendedToolCalls).toEqual([]);
    expect(result.text).toContain('larger than 8192 bytes');
    expect(await db.query('SELECT 1 FROM pending_tool_calls WHERE run_id = $1', [result.runId])).toHaveLength(0);
  });
});

test.describe('CSRF and rate limits', () => {
  test('a cross-origin POST is refused; a same-origin one is accepted', async ({ request, baseURL }) => {
    const body = { id: `csrf-${crypto.randomUUID()}`, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }] };
    const evil = await request.post('/api/chat', { headers: { origin: 'https://evil.example' }, data: body });
    expect(evil.status()).toBe(403);
    expect((await evil.json()).error.code).toBe('CSRF_ORIGIN');
    const same = await request.post('/api/chat', { headers: { origin: baseURL! }, data: body });
    expect(same.status()).toBe(200);
  });

  test('POST /api/chat is rate-limited per user with 429 and Retry-After', async () => {
    const server = await startServer({ port: extraPort(6), env: { CHAT_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const cookie = await sessionCookie(ACCOUNTS.sam, server.url);
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i += 1) {
        const response = await fetch(`${server.url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie },
          body: JSON.stringify({ id: `rate-${crypto.randomUUID()}`, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }),
        });
        statuses.push(response.status);
        if (response.status === 429) {
          retryAfter = response.headers.get('retry-after');
          expect((await response.json()).error.code).toBe('RATE_LIMITED');
        } else await response.text();
      }
      expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(3);
      expect(statuses.at(-1)).toBe(429);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    } finally {
      await server.kill();
    }
  });
});
