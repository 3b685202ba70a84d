import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParser } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { seed } from '../../lib/demo/seed';
import { databaseUrl } from '../support/harness';

/*
 * The chat's live feed (GET /api/chat/{id}/events) and the notice stream under it, against the real
 * database and PostgreSQL NOTIFY, the route handlers called as Next calls them:
 * - a feed opened with the version of the page's snapshot (`?since=`, or `Last-Event-ID` on a
 *   reconnect) says at once when the thread changed since, though no change happens while it is open:
 *   a decision made between the page's render and its feed's connection is not missed (behaviour §6);
 * - a notice is sent at once, not after the coalescing interval; a burst after it becomes one event.
 */

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

let prisma: typeof import('../../lib/store/db').prisma;
let threadVersion: typeof import('../../lib/store/thread-version').threadVersion;
let noticeStreamResponse: typeof import('../../lib/http/notify-sse').noticeStreamResponse;
let routes: { chat: Handler; events: Handler; decision: Handler; messages: Handler };

const userId = `live-feed-${crypto.randomUUID()}`;
let secret = '';

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  process.env.BETTER_AUTH_URL = 'http://localhost:3000';
  await seed(databaseUrl());
  ({ prisma } = await import('../../lib/store/db'));
  ({ threadVersion } = await import('../../lib/store/thread-version'));
  ({ noticeStreamResponse } = await import('../../lib/http/notify-sse'));
  const { auth } = await import('../../lib/auth/auth');
  const { API_KEY_PREFIX } = await import('../../lib/auth/api-keys');
  routes = {
    chat: (await import('../../app/api/chat/route')).POST as Handler,
    events: (await import('../../app/api/chat/[id]/events/route')).GET as Handler,
    messages: (await import('../../app/api/chat/[id]/route')).GET as Handler,
    decision: (await import('../../app/api/runs/[runId]/tool-calls/[toolCallId]/decision/route')).POST as Handler,
  };
  await prisma().user.create({ data: { id: userId, name: 'Live feed', email: `${userId}@example.com`, role: 'user', emailVerified: true } });
  const made = await auth().api.createApiKey({ body: { userId, name: 'live-feed', prefix: API_KEY_PREFIX } });
  await prisma().apikey.update({
    where: { id: made.id },
    data: { permissions: JSON.stringify({ scopes: ['agents:run', 'decisions:write'] }), rateLimitEnabled: false, rateLimitTimeWindow: 60_000, rateLimitMax: 10_000 },
  });
  secret = made.key;
});

afterAll(async () => {
  await prisma().user.deleteMany({ where: { id: userId } });
  const { notifications } = await import('../../lib/store/listen');
  await notifications().close();
  await prisma().$disconnect();
});

function call(handler: Handler, path: string, params: Record<string, string>, init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}) {
  const request = new Request(`http://localhost:3000${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${secret}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
  });
  return handler(request, { params: Promise.resolve(params) });
}

/** The JSON events of an SSE body, read to its end. */
async function events(response: Response): Promise<Record<string, unknown>[]> {
  expect(response.status).toBe(200);
  const out: Record<string, unknown>[] = [];
  for await (const event of response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())) {
    if (event.data !== '[DONE]') out.push(JSON.parse(event.data) as Record<string, unknown>);
  }
  return out;
}

/** Starts a thread whose delete-record call waits for this user; returns its thread, run and call. */
async function threadWithWaitingCall() {
  const threadId = `live-${crypto.randomUUID()}`;
  const parts = await events(
    await call(routes.chat, '/api/chat', {}, {
      method: 'POST',
      body: { id: threadId, messages: [{ role: 'user', parts: [{ type: 'text', text: `/tool delete-record {"id":"rec-live-${threadId}"}` }] }] },
    }),
  );
  const card = parts.find((part) => part.type === 'data-tool-call-approval') as { data: { runId: string; toolCallId: string } } | undefined;
  expect(card, 'an approval card').toBeDefined();
  return { threadId, runId: card!.data.runId, toolCallId: card!.data.toolCallId };
}

async function decline(run: { runId: string; toolCallId: string }) {
  await events(
    await call(routes.decision, `/api/runs/${run.runId}/tool-calls/${run.toolCallId}/decision`, { runId: run.runId, toolCallId: run.toolCallId }, {
      method: 'POST',
      body: { approved: false, reason: 'not now' },
    }),
  );
}

/**
 * Reads an SSE response for `ms` (or until `until` says stop), then aborts it.
 * @returns the `data` of each event, the `id` fields seen, and when each event came (ms after opening)
 */
async function listen(response: Response, abort: AbortController, ms: number, until?: (data: string[]) => boolean) {
  const started = performance.now();
  const data: string[] = [];
  const ids: string[] = [];
  const at: number[] = [];
  expect(response.status).toBe(200);
  // Parsed by eventsource-parser; `id:` lines are read from the text too (a lone `id:` is no event).
  const parser = createParser({
    onEvent: (event) => {
      data.push(event.data);
      at.push(performance.now() - started);
    },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => abort.abort(), ms);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      ids.push(...[...value.matchAll(/^id: (.*)$/gm)].map((match) => match[1]));
      parser.feed(value);
      if (until?.(data)) break;
    }
  } catch {
    // Aborted.
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { data, ids, at };
}

describe('the chat feed catches up with the page’s snapshot', () => {
  it('sends an event at once when the thread changed between the snapshot and the connection, and none when it did not', async () => {
    const run = await threadWithWaitingCall();
    const snapshot = await threadVersion(run.threadId);
    // Decided while the second tab's feed was not connected yet: no notice reaches that feed.
    await decline(run);
    const now = await threadVersion(run.threadId);
    expect(now).not.toBe(snapshot);

    const stale = new AbortController();
    const caughtUp = await listen(
      await call(routes.events, `/api/chat/${run.threadId}/events?since=${snapshot}`, { id: run.threadId }, { signal: stale.signal }),
      stale,
      5_000,
      (data) => data.length > 0,
    );
    expect(caughtUp.data).toEqual(['{"type":"activity"}']);
    // The version it compared with goes out as the SSE id, for the browser's Last-Event-ID on a reconnect.
    expect(caughtUp.ids).toContain(now);

    // A reconnect sends the version the feed last said; the thread changed since that one too.
    const reconnect = new AbortController();
    const afterReconnect = await listen(
      await call(routes.events, `/api/chat/${run.threadId}/events`, { id: run.threadId }, { signal: reconnect.signal, headers: { 'last-event-id': snapshot } }),
      reconnect,
      5_000,
      (data) => data.length > 0,
    );
    expect(afterReconnect.data).toEqual(['{"type":"activity"}']);

    // Up to date: nothing is sent until something changes.
    const current = new AbortController();
    const quiet = await listen(await call(routes.events, `/api/chat/${run.threadId}/events?since=${now}`, { id: run.threadId }, { signal: current.signal }), current, 1_000);
    expect(quiet.data).toEqual([]);
    expect(quiet.ids).toEqual([now]);
  });

  it('changes the version with each change the chat shows: a new call, its decision', async () => {
    const run = await threadWithWaitingCall();
    const waiting = await threadVersion(run.threadId);
    expect(waiting).toMatch(/^[0-9a-f]{32}$/);
    expect(await threadVersion(run.threadId)).toBe(waiting);
    await decline(run);
    expect(await threadVersion(run.threadId)).not.toBe(waiting);
  });

  it('gives the thread’s copy with the names of the people its cards name (what the chat reads when nothing streams)', async () => {
    const run = await threadWithWaitingCall();
    await decline(run);
    const response = await call(routes.messages, `/api/chat/${run.threadId}`, { id: run.threadId });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { messages: { parts: { type: string; data?: { resumed?: boolean } }[] }[]; people: Record<string, { name: string; email: string | null }> };
    expect(body.messages.some((message) => message.parts.some((part) => part.type === 'data-tool-call-approval' && part.data?.resumed === true))).toBe(true);
    expect(body.people[userId]).toEqual({ name: 'Live feed', email: `${userId}@example.com` });
  });

  it('refuses a since that is not a version with 400 BAD_REQUEST', async () => {
    const run = await threadWithWaitingCall();
    for (const since of ['abc', '0'.repeat(33), 'Z'.repeat(32)]) {
      const response = await call(routes.events, `/api/chat/${run.threadId}/events?since=${since}`, { id: run.threadId });
      expect(response.status, since).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.message).toContain('since');
    }
    const header = await call(routes.events, `/api/chat/${run.threadId}/events`, { id: run.threadId }, { headers: { 'last-event-id': 'not-a-version' } });
    expect(header.status).toBe(400);
  });
});

describe('notices are sent at once', () => {
  it('sends the first notice without waiting for the interval, and a burst after it as one event when the interval ends', async () => {
    let notify = () => {};
    const abort = new AbortController();
    const response = noticeStreamResponse({
      request: new Request('http://localhost/feed', { signal: abort.signal }),
      actorId: `notice-${crypto.randomUUID()}`,
      event: '{"type":"changed"}',
      intervalMs: 2_000,
      subscribe: async (callback) => {
        notify = callback;
        return [];
      },
    });
    const opened = performance.now();
    const reading = listen(response, abort, 6_000, (data) => data.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = performance.now();
    notify();
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 5; i++) notify();
    const { data, at } = await reading;
    expect(data).toEqual(['{"type":"changed"}', '{"type":"changed"}']);
    // The first at once (no polling or debounce delay; generous for a busy machine), the burst not before the interval ended.
    expect(opened + at[0] - sent).toBeLessThan(500);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(1_900);
  });
});
