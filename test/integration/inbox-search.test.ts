import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../lib/generated/prisma/client';
import { callOutcome } from '../../lib/inbox/outcome';
import { inboxQueueCounts, inboxQuerySchema, listInbox } from '../../lib/inbox/queries';
import { createPrismaClient } from '../../lib/store/db';
import { createScratchDatabase } from '../support/scratch-db';

/*
 * The inbox's search box searches on the server (issue 30, item 9): every word in the tool, agent,
 * arguments or requester, over every waiting call (not the page in hand); and the queue and kind counts follow the same filters and search as the list.
 */

const ROWS = 6_000;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let db: PrismaClient;
const rita = { id: 'reviewer-rita', role: 'reviewer' };

beforeAll(async () => {
  scratch = await createScratchDatabase('countersign_inbox_search');
  db = createPrismaClient(scratch.url, { maxConnections: 2 });
  await db.$executeRaw`INSERT INTO users (id, name, email, email_verified, role) VALUES
    ('user-ada', 'Ada Lovelace', 'ada@example.com', true, 'user'),
    ('user-grace', 'Grace Hopper', 'grace@example.com', true, 'user'),
    ('reviewer-rita', 'Rita', 'rita@example.com', true, 'reviewer')`;
  await db.$executeRaw`
    WITH thread AS (INSERT INTO threads (id, resource_id, agent_id) VALUES ('t-search', 'user-ada', 'ops-agent')),
    run AS (INSERT INTO runs (id, thread_id, resource_id, requested_by, agent_id, message_id, status) VALUES ('r-search', 't-search', 'user-ada', 'user-ada', 'ops-agent', 'm', 'suspended'))
    INSERT INTO pending_tool_calls (id, run_id, tool_call_id, kind, status, tool_name, args, fingerprint, approvers, policy, resume_schema,
      thread_id, resource_id, requested_by, agent_id, chain, root_run_id, root_tool_call_id, created_at)
    SELECT 'p-' || lpad(g::text, 6, '0'), 'r-search', 'c-' || g, CASE WHEN g % 5 = 0 THEN 'suspension' ELSE 'approval' END, 'pending',
      CASE WHEN g % 2 = 0 THEN 'send-email' ELSE 'delete-record' END,
      jsonb_build_object('subject', 'Weekly report ' || g, 'to', 'ops@example.com'), 'f', 'requester', 'tool', '{}',
      't-search', 'user-ada', CASE WHEN g = 7 THEN 'user-grace' ELSE 'user-ada' END, 'ops-agent', '{ops-agent}', 'r-search', 'c-' || g,
      timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second'
    FROM generate_series(1, ${ROWS}) g`;
  // One call far down the list (the oldest), with a word no other has.
  await db.$executeRaw`UPDATE pending_tool_calls SET args = '{"subject": "Quarterly Zanzibar numbers", "to": "cfo@example.com"}' WHERE id = 'p-000003'`;
  await db.$executeRaw`ANALYZE pending_tool_calls`;
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await scratch?.drop();
});

describe('inbox search on the server', () => {
  it('finds a call beyond the first page by a word of its arguments, any case; every word must match', async () => {
    const found = await listInbox(inboxQuerySchema.parse({ q: 'zanzibar' }), db);
    expect(found.items.map((item) => item.id)).toEqual(['p-000003']);
    expect((await listInbox(inboxQuerySchema.parse({ q: 'QUARTERLY delete-record' }), db)).items.map((item) => item.id)).toEqual(['p-000003']);
    expect((await listInbox(inboxQuerySchema.parse({ q: 'quarterly send-email' }), db)).items).toEqual([]);
    // LIKE's wildcards are words like any other.
    expect((await listInbox(inboxQuerySchema.parse({ q: '%' }), db)).items).toEqual([]);
  });

  it('finds calls by the requester’s name or email', async () => {
    expect((await listInbox(inboxQuerySchema.parse({ q: 'grace' }), db)).items.map((item) => item.id)).toEqual(['p-000007']);
    expect((await listInbox(inboxQuerySchema.parse({ q: 'hopper@ delete' }), db)).items).toEqual([]);
    expect((await listInbox(inboxQuerySchema.parse({ q: 'grace@example delete' }), db)).items.map((item) => item.id)).toEqual(['p-000007']);
  });

  it('refuses a search over 200 characters', () => {
    expect(inboxQuerySchema.safeParse({ q: 'x'.repeat(201) }).success).toBe(false);
  });
});

describe('inbox counts follow the filters', () => {
  it('counts each queue and each kind under the same filters and search as the list', async () => {
    const all = await inboxQueueCounts(rita, {}, 'all', db);
    expect(all.all).toBe(1_000);
    const grace = await inboxQueueCounts(rita, inboxQuerySchema.parse({ requester: 'grace' }), 'all', db);
    expect(grace).toMatchObject({ all: 1, mine: 1, unassigned: 1, requested: 0, kinds: { approval: 1, suspension: 0 } });
    // The counts agree with paging through the list under the same filters and search.
    const filters = { q: 'report 59', toolName: 'send-email' };
    const counted = await inboxQueueCounts(rita, inboxQuerySchema.parse(filters), 'all', db);
    const listed: { kind: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await listInbox(inboxQuerySchema.parse({ ...filters, limit: 100, ...(cursor ? { cursor } : {}) }), db);
      listed.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(listed.length).toBeGreaterThan(50);
    expect(counted.all).toBe(listed.length);
    expect(counted.kinds).toEqual({
      approval: listed.filter((item) => item.kind === 'approval').length,
      suspension: listed.filter((item) => item.kind === 'suspension').length,
    });
  });
});

describe('what became of a call (GET /api/inbox/outcome)', () => {
  it('names the latest decision and who made it, and reads the tool’s result from the run’s event log', async () => {
    await db.$executeRaw`UPDATE pending_tool_calls SET status = 'approved' WHERE id = 'p-000011'`;
    // A placeholder chain link: this database tests the lookup, not the audit chain (audit-chain.test.ts does).
    await db.$executeRaw`INSERT INTO decisions (id, pending_call_id, run_id, tool_call_id, kind, approved, actor_id, actor_role, fingerprint, args, chain_seq, hash)
      VALUES ('d-outcome', 'p-000011', 'r-search', 'c-11', 'approval', true, 'reviewer-rita', 'reviewer', 'f', '{}', 1, repeat('0', 64))`;
    await db.$executeRaw`INSERT INTO run_events (run_id, chunk) VALUES
      ('r-search', ${JSON.stringify({ type: 'tool-result', runId: 'r-search', from: 'AGENT', payload: { toolCallId: 'c-12', toolName: 'send-email', args: {}, result: { sent: true, message: 'Not this one.' } } })}::jsonb),
      ('r-search', ${JSON.stringify({ type: 'tool-result', runId: 'r-search', from: 'AGENT', payload: { toolCallId: 'c-11', toolName: 'delete-record', args: {}, result: { deleted: false, message: 'Record x does not exist.' } } })}::jsonb)`;
    const outcome = await callOutcome({ runId: 'r-search', toolCallId: 'c-11' }, db);
    expect(outcome).toMatchObject({
      status: 'approved',
      decision: { kind: 'approval', approved: true, actorId: 'reviewer-rita', actorRole: 'reviewer', reason: null },
      result: { output: { deleted: false, message: 'Record x does not exist.' } },
    });
    // Still waiting: no decision, no result.
    expect(await callOutcome({ runId: 'r-search', toolCallId: 'c-13' }, db)).toMatchObject({ status: 'pending', decision: null, result: null });
    await expect(callOutcome({ runId: 'r-search', toolCallId: 'nope' }, db)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
