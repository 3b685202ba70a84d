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
