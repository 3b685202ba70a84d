import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../support/harness';

/* The limiter the routes use, against the real database through the process-wide client. */

let countInWindow: typeof import('../../lib/http/rate-limit').countInWindow;
let consumeRateLimit: typeof import('../../lib/http/rate-limit').consumeRateLimit;
let prisma: typeof import('../../lib/store/db').prisma;

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  ({ countInWindow, consumeRateLimit } = await import('../../lib/http/rate-limit'));
  ({ prisma } = await import('../../lib/store/db'));
});
afterAll(() => prisma().$disconnect());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `now % windowMs` lies in [from, from + 100) ms, i.e. at a known place in the window. */
async function waitForWindowOffset(windowMs: number, from: number): Promise<void> {
  for (;;) {
    const offset = Date.now() % windowMs;
    if (offset >= from && offset < from + 100) return;
    await sleep(Math.max(1, (from - offset + windowMs) % windowMs));
  }
}

describe('the PostgreSQL rate limiter counts over a sliding window', () => {
  it('a burst just before a window boundary still counts just after it', async () => {
    const key = `test:${crypto.randomUUID()}`;
    const windowMs = 4_000;
    await waitForWindowOffset(windowMs, 3_000);
    for (let i = 0; i < 3; i += 1) await countInWindow({ key, windowMs });
    await waitForWindowOffset(windowMs, 100);
    const { count, retryAfterSeconds } = await countInWindow({ key, windowMs });
    // Fixed windows would say 1 here: a limit of 3 would let 6 requests through in a second.
    expect(count).toBe(4);
    expect(retryAfterSeconds).toBeGreaterThan(0);
  });

  it('the previous window fades out as the window slides', async () => {
    const key = `test:${crypto.randomUUID()}`;
    const windowMs = 4_000;
    await waitForWindowOffset(windowMs, 2_000);
    for (let i = 0; i < 4; i += 1) await countInWindow({ key, windowMs });
    await waitForWindowOffset(windowMs, 100); // the next window …
    await waitForWindowOffset(windowMs, 3_000); // … three quarters in
    // 4 × (1 − 0.75…0.8) of the previous window rounds up to 1, plus this request.
    expect((await countInWindow({ key, windowMs })).count).toBe(2);
  });

  it('consumeRateLimit refuses past the limit across the boundary with 429 RATE_LIMITED', async () => {
    const key = `test:${crypto.randomUUID()}`;
    const windowMs = 4_000;
    await waitForWindowOffset(windowMs, 3_000);
    for (let i = 0; i < 3; i += 1) await consumeRateLimit({ key, limit: 3, windowMs });
    await waitForWindowOffset(windowMs, 100);
    await expect(consumeRateLimit({ key, limit: 3, windowMs })).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });
});

describe('access checks count the rate limit in the same statement', () => {
  it('a run request counts only once the run is known reachable; the limit then refuses with 429', async () => {
    const { assertRunAccess } = await import('../../lib/runs/access');
    const threadId = `rl-thread-${crypto.randomUUID()}`;
    const runId = `rl-run-${crypto.randomUUID()}`;
    await prisma().$executeRaw`INSERT INTO threads (id, resource_id, agent_id) VALUES (${threadId}, 'rl-owner', 'ops-agent')`;
    await prisma().$executeRaw`INSERT INTO runs (id, thread_id, resource_id, requested_by, agent_id, message_id, status)
      VALUES (${runId}, ${threadId}, 'rl-owner', 'rl-owner', 'ops-agent', ${`m-${runId}`}, 'suspended')`;
    const limit = (key: string) => ({ key, limit: 2, windowMs: 60_000 });
    const counted = async (key: string) =>
      (await prisma().$queryRaw<{ n: number }[]>`SELECT coalesce(sum(count), 0)::int AS n FROM rate_limits WHERE key = ${key}`)[0].n;

    // Someone else's run, an unknown run, another thread: 404 and nothing counted.
    const stranger = `rl:${crypto.randomUUID()}`;
    await expect(assertRunAccess(runId, { id: 'rl-stranger', role: 'user' }, undefined, limit(stranger))).rejects.toMatchObject({ status: 404 });
    await expect(assertRunAccess('rl-no-such-run', { id: 'rl-owner', role: 'user' }, undefined, limit(stranger))).rejects.toMatchObject({ status: 404 });
    await expect(assertRunAccess(runId, { id: 'rl-owner', role: 'user' }, 'rl-other-thread', limit(stranger))).rejects.toMatchObject({ status: 404 });
    expect(await counted(stranger)).toBe(0);

    // The owner (and a reviewer, who reaches every run) is counted: the third request in the window is refused.
    const owner = `rl:${crypto.randomUUID()}`;
    expect(await assertRunAccess(runId, { id: 'rl-owner', role: 'user' }, threadId, limit(owner))).toEqual({ agentId: 'ops-agent', threadId });
    expect(await assertRunAccess(runId, { id: 'rl-reviewer', role: 'reviewer' }, undefined, limit(owner))).toEqual({ agentId: 'ops-agent', threadId });
    await expect(assertRunAccess(runId, { id: 'rl-owner', role: 'user' }, undefined, limit(owner))).rejects.toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
    });
    expect(await counted(owner)).toBe(3);
  });

  it('the chat counts every well-formed request and reads the thread in the same statement', async () => {
    const { readChatTarget } = await import('../../lib/runs/access');
    const readThreadCounting = async (id: string, limit: { key: string; limit: number; windowMs: number }) => (await readChatTarget(id, null, limit)).thread;
    const threadId = `rl-thread-${crypto.randomUUID()}`;
    await prisma().$executeRaw`INSERT INTO threads (id, resource_id, agent_id, title) VALUES (${threadId}, 'rl-owner', 'ops-agent', 'Mine')`;
    const key = `rl:${crypto.randomUUID()}`;
    expect(await readThreadCounting(threadId, { key, limit: 2, windowMs: 60_000 })).toEqual({
      resourceId: 'rl-owner',
      title: 'Mine',
      agentId: 'ops-agent',
      deletedAt: null,
    });
    expect(await readThreadCounting('rl-no-such-thread', { key, limit: 2, windowMs: 60_000 })).toBeNull();
    await expect(readThreadCounting(threadId, { key, limit: 2, windowMs: 60_000 })).rejects.toMatchObject({ status: 429 });
  });

  it('a decision sent in the chat body: its thread and run are read with the request’s count', async () => {
    const { readChatTarget } = await import('../../lib/runs/access');
    const threadId = `rl-thread-${crypto.randomUUID()}`;
    const runId = `rl-run-${crypto.randomUUID()}`;
    await prisma().$executeRaw`INSERT INTO threads (id, resource_id, agent_id, title) VALUES (${threadId}, 'rl-owner', 'ops-agent', 'Mine')`;
    await prisma().$executeRaw`INSERT INTO runs (id, thread_id, resource_id, requested_by, agent_id, message_id, status)
      VALUES (${runId}, ${threadId}, 'rl-owner', 'rl-owner', 'ops-agent', ${crypto.randomUUID()}, 'suspended')`;
    const key = `rl:${crypto.randomUUID()}`;
    expect(await readChatTarget(threadId, runId, { key, limit: 2, windowMs: 60_000 })).toEqual({
      thread: { resourceId: 'rl-owner', title: 'Mine', agentId: 'ops-agent', deletedAt: null },
      run: { agentId: 'ops-agent', threadId, resourceId: 'rl-owner', parentRunId: null },
    });
    expect(await readChatTarget(threadId, 'rl-no-such-run', { key, limit: 2, windowMs: 60_000 })).toMatchObject({ run: null });
    await expect(readChatTarget(threadId, runId, { key, limit: 2, windowMs: 60_000 })).rejects.toMatchObject({ status: 429 });
  });
});
