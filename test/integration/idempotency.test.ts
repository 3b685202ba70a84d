import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../support/harness';

/* withIdempotency against the real database, through the process-wide client the routes use. */

let withIdempotency: typeof import('../../lib/http/idempotency').withIdempotency;
let prisma: typeof import('../../lib/store/db').prisma;

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  ({ withIdempotency } = await import('../../lib/http/idempotency'));
  ({ prisma } = await import('../../lib/store/db'));
});
afterAll(() => prisma().$disconnect());

const request = (key: string, body: string) =>
  new Request('http://localhost/api/runs/r/tool-calls/c/decision', { method: 'POST', headers: { 'idempotency-key': key }, body });

describe('Idempotency-Key', () => {
  it('runs the first request once; a retry gets its response; the same key for another body is refused', async () => {
    const key = `key-${crypto.randomUUID()}`;
    let runs = 0;
    const handler = async () => {
      runs += 1;
      return Response.json({ run: runs }, { status: 201 });
    };
    const first = await withIdempotency({ request: request(key, '{"a":1}'), actorId: 'user-ada', body: '{"a":1}' }, handler);
    expect(first.status).toBe(201);
    expect(await first.json()).toEqual({ run: 1 });
    // The stored copy of a streamed body lands as the stream ends.
    await expect.poll(async () => (await prisma().idempotencyKey.findFirst({ where: { key } }))?.status).toBe('done');

    const retry = await withIdempotency({ request: request(key, '{"a":1}'), actorId: 'user-ada', body: '{"a":1}' }, handler);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual({ run: 1 });
    expect(runs).toBe(1);

    const other = await withIdempotency({ request: request(key, '{"a":2}'), actorId: 'user-ada', body: '{"a":2}' }, handler);
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    // Keys are per actor.
    const ben = await withIdempotency({ request: request(key, '{"a":2}'), actorId: 'user-ben', body: '{"a":2}' }, handler);
    expect(ben.status).toBe(201);
    expect(runs).toBe(2);
  });

  it('a refused request (400: the body was not valid) is not kept: the corrected request with the same key runs', async () => {
    const key = `key-${crypto.randomUUID()}`;
    const refused = await withIdempotency({ request: request(key, '{"threadId":"idem 1"}'), actorId: 'user-ada', body: '{"threadId":"idem 1"}' }, async () =>
      Response.json({ error: { code: 'BAD_REQUEST', message: 'a thread id is 1–100 letters, digits, - or _' } }, { status: 400 }),
    );
    expect(refused.status).toBe(400);
    expect(await prisma().idempotencyKey.findFirst({ where: { key } })).toBeNull();

    const corrected = await withIdempotency({ request: request(key, '{"threadId":"idem-1"}'), actorId: 'user-ada', body: '{"threadId":"idem-1"}' }, async () =>
      Response.json({ accepted: true }),
    );
    expect(corrected.status).toBe(200);
    expect(await corrected.json()).toEqual({ accepted: true });
  });

  it('concurrent requests with one key: one runs, the others are told it is in progress', async () => {
    const key = `key-${crypto.randomUUID()}`;
    let runs = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handler = async () => {
      runs += 1;
      await gate;
      return Response.json({ ok: true });
    };
    let settled = 0;
    const pending = Array.from({ length: 8 }, () =>
      withIdempotency({ request: request(key, '{}'), actorId: 'user-ada', body: '{}' }, handler).finally(() => (settled += 1)),
    );
    // Everyone but the first answers while the first is still running.
    await expect.poll(() => settled, { timeout: 10_000 }).toBe(7);
    expect(runs).toBe(1);
    release();
    const responses = await Promise.all(pending);
    expect(runs).toBe(1);
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.status === 409)) expect(response.headers.get('retry-after')).toBe('1');
  });
});
