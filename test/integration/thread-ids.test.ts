import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../../lib/demo/seed';
import { databaseUrl } from '../support/harness';

/*
 * One thread-id rule everywhere (lib/chat/limits.ts THREAD_ID: 1–100 letters, digits, - or _).
 * The route handlers of the agents, threads and chat routes are called as Next calls them — a
 * Request signed with an API key, the path's params — against the real database: an id outside
 * the rule is 400 BAD_REQUEST and writes nothing, so no thread exists that the chat cannot open,
 * rename or delete.
 */

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

let prisma: typeof import('../../lib/store/db').prisma;
let routes: {
  stream: Handler;
  generate: Handler;
  sendToolApproval: Handler;
  suspendedRuns: Handler;
  renameThread: Handler;
  deleteThread: Handler;
  chatMessages: Handler;
  chatStream: Handler;
  chatEvents: Handler;
};

const userId = `thread-ids-${crypto.randomUUID()}`;
let secret = '';

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  process.env.BETTER_AUTH_URL = 'http://localhost:3000';
  await seed(databaseUrl());
  ({ prisma } = await import('../../lib/store/db'));
  const { auth } = await import('../../lib/auth/auth');
  const { API_KEY_PREFIX } = await import('../../lib/auth/api-keys');
  routes = {
    stream: (await import('../../app/api/agents/[agentId]/stream/route')).POST as Handler,
    generate: (await import('../../app/api/agents/[agentId]/generate/route')).POST as Handler,
    sendToolApproval: (await import('../../app/api/agents/[agentId]/send-tool-approval/route')).POST as Handler,
    suspendedRuns: (await import('../../app/api/agents/[agentId]/suspended-runs/route')).GET as Handler,
    renameThread: (await import('../../app/api/threads/[id]/route')).PATCH as Handler,
    deleteThread: (await import('../../app/api/threads/[id]/route')).DELETE as Handler,
    chatMessages: (await import('../../app/api/chat/[id]/route')).GET as Handler,
    chatStream: (await import('../../app/api/chat/[id]/stream/route')).GET as Handler,
    chatEvents: (await import('../../app/api/chat/[id]/events/route')).GET as Handler,
  };
  // An end user with a key that may start runs and decide, as /settings/keys makes them.
  await prisma().user.create({ data: { id: userId, name: 'Thread ids', email: `${userId}@example.com`, role: 'user', emailVerified: true } });
  const made = await auth().api.createApiKey({ body: { userId, name: 'thread-ids', prefix: API_KEY_PREFIX } });
  await prisma().apikey.update({
    where: { id: made.id },
    data: { permissions: JSON.stringify({ scopes: ['agents:run', 'decisions:write'] }), rateLimitEnabled: false, rateLimitTimeWindow: 60_000, rateLimitMax: 10_000 },
  });
  secret = made.key;
});

afterAll(async () => {
  await prisma().user.deleteMany({ where: { id: userId } });
  await prisma().$disconnect();
});

/** Calls a route handler as Next would: the key in the Authorization header, `params` from the path. */
function call(handler: Handler, path: string, params: Record<string, string>, init: { method?: string; body?: unknown } = {}) {
  const request = new Request(`http://localhost:3000${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${secret}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return handler(request, { params: Promise.resolve(params) });
}

const agent = { agentId: 'ops-agent' };

/** Ids the chat cannot open, each unique to this run so "no row" means nothing was written. */
function badIds() {
  const tag = crypto.randomUUID();
  return {
    'a space': `bad ${tag}`,
    'a slash': `bad/${tag}`,
    'a percent sign': `bad%${tag}`,
    'a question mark and a hash': `bad?x#${tag}`,
    'a non-ASCII letter': `bäd-${tag}`,
    '150 characters': `bad-${tag}-`.padEnd(150, 'x'),
    '101 characters': `bad-${tag}-`.padEnd(101, 'x'),
    // Valid once trimmed: the agents API trimmed ids, and now takes them exactly as sent or not at all.
    'leading and trailing spaces': ` bad-${tag} `,
  };
}

/** The answer is 400 BAD_REQUEST in the project's error shape, naming the thread id. */
async function expectRefused(response: Response, what: string) {
  expect(response.status, what).toBe(400);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code, what).toBe('BAD_REQUEST');
  expect(body.error.message, what).toMatch(/thread id is 1–100 letters, digits, - or _/);
}

/** Nothing of a thread with any of these ids (or them trimmed) was written: no thread, message, run or waiting call. */
async function expectNothingWritten(sent: string[]) {
  const ids = [...sent, ...sent.map((id) => id.trim())];
  const db = prisma();
  expect(await db.thread.count({ where: { id: { in: ids } } })).toBe(0);
  expect(await db.message.count({ where: { threadId: { in: ids } } })).toBe(0);
  expect(await db.run.count({ where: { threadId: { in: ids } } })).toBe(0);
  expect(await db.pendingToolCall.count({ where: { threadId: { in: ids } } })).toBe(0);
}

describe('a thread id outside THREAD_ID', () => {
  it('is refused by the agents stream route, in both body forms, with 400 BAD_REQUEST, and no thread is created', async () => {
    const ids = badIds();
    for (const [what, threadId] of Object.entries(ids)) {
      await expectRefused(
        await call(routes.stream, '/api/agents/ops-agent/stream', agent, { method: 'POST', body: { messages: 'delete record rec-42', threadId, resourceId: userId } }),
        `stream, threadId with ${what}`,
      );
      await expectRefused(
        await call(routes.stream, '/api/agents/ops-agent/stream', agent, {
          method: 'POST',
          body: { messages: 'delete record rec-42', memory: { thread: { id: threadId }, resource: userId } },
        }),
        `stream, memory.thread.id with ${what}`,
      );
    }
    await expectNothingWritten(Object.values(ids));
  });

  it('is refused by generate and send-tool-approval, and as the suspended-runs filter', async () => {
    const ids = badIds();
    for (const [what, threadId] of Object.entries(ids)) {
      await expectRefused(
        await call(routes.generate, '/api/agents/ops-agent/generate', agent, { method: 'POST', body: { messages: 'delete record rec-42', memory: { thread: threadId, resource: userId } } }),
        `generate with ${what}`,
      );
      await expectRefused(
        await call(routes.sendToolApproval, '/api/agents/ops-agent/send-tool-approval', agent, { method: 'POST', body: { threadId, resourceId: userId, approved: true } }),
        `send-tool-approval with ${what}`,
      );
      await expectRefused(
        await call(routes.suspendedRuns, `/api/agents/ops-agent/suspended-runs?threadId=${encodeURIComponent(threadId)}`, agent),
        `suspended-runs with ${what}`,
      );
    }
    await expectNothingWritten(Object.values(ids));
  });

  it('is refused by the threads routes and the chat’s thread routes', async () => {
    const ids = badIds();
    for (const [what, id] of Object.entries(ids)) {
      const path = `/api/threads/${encodeURIComponent(id)}`;
      await expectRefused(await call(routes.renameThread, path, { id }, { method: 'PATCH', body: { title: 'Renamed' } }), `rename with ${what}`);
      await expectRefused(await call(routes.deleteThread, path, { id }, { method: 'DELETE' }), `delete with ${what}`);
      const chat = `/api/chat/${encodeURIComponent(id)}`;
      await expectRefused(await call(routes.chatMessages, chat, { id }), `chat messages with ${what}`);
      await expectRefused(await call(routes.chatStream, `${chat}/stream`, { id }), `chat stream with ${what}`);
      await expectRefused(await call(routes.chatEvents, `${chat}/events`, { id }), `chat events with ${what}`);
    }
    await expectNothingWritten(Object.values(ids));
  });
});

describe('a thread id inside THREAD_ID', () => {
  it('of 100 characters starts a run on the agents API, and the thread can then be renamed and deleted', async () => {
    const threadId = `ok-${crypto.randomUUID()}_`.padEnd(100, 'x');
    const started = await call(routes.generate, '/api/agents/ops-agent/generate', agent, {
      method: 'POST',
      body: { messages: 'look up customer cus-1', threadId, resourceId: userId },
    });
    expect(started.status).toBe(200);
    expect(await prisma().thread.findUnique({ where: { id: threadId }, select: { resourceId: true } })).toEqual({ resourceId: userId });

    const suspended = await call(routes.suspendedRuns, `/api/agents/ops-agent/suspended-runs?threadId=${threadId}`, agent);
    expect(suspended.status).toBe(200);
    expect(await suspended.json()).toEqual({ runs: [], total: 0 });

    const path = `/api/threads/${threadId}`;
    const renamed = await call(routes.renameThread, path, { id: threadId }, { method: 'PATCH', body: { title: 'Long id' } });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ thread: { id: threadId, title: 'Long id' } });
    const deleted = await call(routes.deleteThread, path, { id: threadId }, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: true, id: threadId });
  });
});
