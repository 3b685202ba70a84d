import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditCsvStream, auditPageQuery, auditQuerySchema, CSV_PAGE, listAudit } from '../../lib/audit/queries';
import type { PrismaClient } from '../../lib/generated/prisma/client';
import { Prisma } from '../../lib/generated/prisma/client';
import { decodeCursor } from '../../lib/http/keyset';
import { inboxPageQuery, inboxQuerySchema, listInbox } from '../../lib/inbox/queries';
import { createPrismaClient } from '../../lib/store/db';
import { createScratchDatabase } from '../support/scratch-db';

/*
 * Inbox and audit pages at depth: the cursor must be an index condition (the scan starts at the
 * cursor), not a filter over every newer row. Checked on the very statement the routes run, in a
 * database of its own with enough rows that PostgreSQL prefers the index.
 */

const PENDING = 20_000;
const DECISIONS = 5_000;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let db: PrismaClient;

beforeAll(async () => {
  scratch = await createScratchDatabase('countersign_keyset');
  db = createPrismaClient(scratch.url, { maxConnections: 2 });
  // Three rows share each created_at, so ties are broken by id.
  await db.$executeRaw`
    WITH thread AS (INSERT INTO threads (id, resource_id, agent_id) VALUES ('t-keyset', 'user-ada', 'ops-agent')),
    run AS (INSERT INTO runs (id, thread_id, resource_id, requested_by, agent_id, message_id, status) VALUES ('r-keyset', 't-keyset', 'user-ada', 'user-ada', 'ops-agent', 'm', 'suspended'))
    INSERT INTO pending_tool_calls (id, run_id, tool_call_id, kind, status, tool_name, args, fingerprint, approvers, policy, resume_schema,
      thread_id, resource_id, requested_by, agent_id, chain, root_run_id, root_tool_call_id, created_at)
    SELECT 'p-' || lpad(g::text, 6, '0'), 'r-keyset', 'c-' || g, 'approval',
      CASE WHEN g % 10 = 0 THEN 'completed' ELSE 'pending' END,
      CASE WHEN g % 4 = 0 THEN 'send-email' ELSE 'delete-record' END, '{}', 'f', 'requester', 'tool', '{}',
      't-keyset', 'user-ada', 'user-ada', 'ops-agent', '{ops-agent}', 'r-keyset', 'c-' || g,
      timestamptz '2026-01-01 00:00:00+00' + (g / 3) * interval '1 second'
    FROM generate_series(1, ${PENDING}) g`;
  await db.$executeRaw`
    INSERT INTO decisions (id, pending_call_id, run_id, tool_call_id, kind, approved, actor_id, actor_role, fingerprint, args, created_at, chain_seq, hash)
    SELECT 'd-' || lpad(g::text, 6, '0'), 'p-000010', 'r-keyset', 'c-10', 'approval', true,
      CASE WHEN g % 2 = 0 THEN 'reviewer-rita' ELSE 'reviewer-sam' END, 'reviewer', 'f', '{}',
      timestamptz '2026-01-01 00:00:00+00' + (g / 3) * interval '1 second',
      -- Placeholder links: this scratch database tests paging, not the audit chain (audit-chain.test.ts does).
      g, repeat('0', 64)
    FROM generate_series(1, ${DECISIONS}) g`;
  await db.$executeRaw`ANALYZE pending_tool_calls`;
  await db.$executeRaw`ANALYZE decisions`;
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await scratch?.drop();
});

type PlanNode = { 'Node Type': string; 'Index Name'?: string; 'Index Cond'?: string; Filter?: string; 'Actual Rows'?: number; 'Rows Removed by Filter'?: number; Plans?: PlanNode[] };

async function explain(query: Prisma.Sql): Promise<PlanNode[]> {
  const [row] = await db.$queryRaw<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${query}`);
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    node.Plans?.forEach(walk);
  };
  walk(row['QUERY PLAN'][0].Plan);
  return nodes;
}

/** The cursor of the `depth`-th row of the whole list (newest first). */
async function cursorAt(table: 'pending_tool_calls' | 'decisions', depth: number, where: Prisma.Sql) {
  const [row] = await db.$queryRaw<{ createdAt: Date; id: string }[]>`
    SELECT created_at AS "createdAt", id FROM ${Prisma.raw(table)} WHERE ${where}
    ORDER BY created_at DESC, id DESC OFFSET ${depth} LIMIT 1`;
  return row;
}

describe('keyset pages', () => {
  it('inbox: the cursor is a row comparison in the index condition; a deep page reads only its own rows', async () => {
    const query = inboxQuerySchema.parse({ limit: 50 });
    const after = await cursorAt('pending_tool_calls', 15_000, Prisma.sql`status = 'pending'`);
    const nodes = await explain(inboxPageQuery(query, after));
    expect(nodes.some((node) => node['Node Type'] === 'Sort')).toBe(false);
    const scan = nodes.find((node) => node['Index Name'] === 'pending_tool_calls_status_created_at_id_idx');
    expect(scan, JSON.stringify(nodes)).toBeDefined();
    expect(scan!['Index Cond']).toMatch(/\(ROW\(created_at, id\) < ROW\(/);
    expect(scan!.Filter ?? '').not.toMatch(/created_at/);
    // It starts at the cursor: the scan yields this page (and the one row that says "more"), nothing newer.
    expect(scan!['Actual Rows']).toBe(51);
    expect(scan!['Rows Removed by Filter'] ?? 0).toBe(0);
  });

  it('inbox filtered by tool: the cursor stays a row comparison in the index condition of the tool index', async () => {
    const query = inboxQuerySchema.parse({ limit: 50, toolName: 'send-email' });
    const after = await cursorAt('pending_tool_calls', 3_000, Prisma.sql`status = 'pending' AND tool_name = 'send-email'`);
    const nodes = await explain(inboxPageQuery(query, after));
    expect(nodes.some((node) => node['Node Type'] === 'Sort')).toBe(false);
    const scan = nodes.find((node) => node['Index Name'] === 'pending_tool_calls_status_tool_name_created_at_id_idx');
    expect(scan, JSON.stringify(nodes)).toBeDefined();
    expect(scan!['Index Cond']).toMatch(/tool_name = /);
    expect(scan!['Index Cond']).toMatch(/\(ROW\(created_at, id\) < ROW\(/);
    expect(scan!['Actual Rows']).toBe(51);
    expect(scan!['Rows Removed by Filter'] ?? 0).toBe(0);
  });

  it('search by requester name or email and date range reaches every page, not only the loaded one', async () => {
    await db.$executeRaw`INSERT INTO users (id, name, email, role) VALUES ('user-ada', 'Ada Lovelace', 'ada@example.com', 'user') ON CONFLICT (id) DO NOTHING`;
    const byEmail = await listInbox(inboxQuerySchema.parse({ limit: 100, requester: 'ADA@example' }), db);
    expect(byEmail.items).toHaveLength(100);
    expect(byEmail.nextCursor).not.toBeNull();
    expect((await listInbox(inboxQuerySchema.parse({ limit: 100, requester: 'lovelace' }), db)).items).toHaveLength(100);
    // A LIKE pattern character in the search is matched literally.
    expect((await listInbox(inboxQuerySchema.parse({ limit: 100, requester: 'ada%' }), db)).items).toHaveLength(0);
    expect((await listInbox(inboxQuerySchema.parse({ limit: 100, requester: 'nobody' }), db)).items).toHaveLength(0);
    // The oldest rows (2026-01-01 00:00:00..00:00:09 → g 1..29) only: the last page of the whole list.
    const early = await listInbox(inboxQuerySchema.parse({ limit: 100, to: '2026-01-01T00:00:09Z' }), db);
    expect(early.items.map((item) => item.createdAt).every((at) => at <= '2026-01-01T00:00:09.000Z')).toBe(true);
    expect(early.items).toHaveLength(27); // g = 1..29 minus the two completed (10, 20)
    expect(() => inboxQuerySchema.parse({ from: 'yesterday' })).toThrow();
  });

  it('audit: the cursor is a row comparison in the index condition of (created_at DESC, id DESC)', async () => {
    const query = auditQuerySchema.parse({ limit: 100 });
    const after = await cursorAt('decisions', 4_000, Prisma.sql`TRUE`);
    const nodes = await explain(auditPageQuery(query, after));
    expect(nodes.some((node) => node['Node Type'] === 'Sort')).toBe(false);
    const scan = nodes.find((node) => node['Index Name'] === 'decisions_created_at_id_idx');
    expect(scan, JSON.stringify(nodes)).toBeDefined();
    expect(scan!['Index Cond']).toMatch(/\(ROW\(created_at, id\) < ROW\(/);
    expect(scan!['Actual Rows']).toBe(101);
  });

  it('paging by cursor visits every row once, in order, across ties in created_at', async () => {
    const all = await db.$queryRaw<{ id: string }[]>`
      SELECT id FROM pending_tool_calls WHERE status = 'pending' AND tool_name = 'send-email' ORDER BY created_at DESC, id DESC`;
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listInbox(inboxQuerySchema.parse({ limit: 97, toolName: 'send-email', cursor }), db);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor ?? undefined;
      if (cursor) expect(decodeCursor(cursor)!.id).toBe(page.items.at(-1)!.id);
    } while (cursor);
    expect(seen).toEqual(all.map((row) => row.id));

    const decisions: string[] = [];
    let auditCursor: string | undefined;
    do {
      const page = await listAudit(auditQuerySchema.parse({ limit: 500, actorId: 'reviewer-rita', cursor: auditCursor }), db);
      decisions.push(...page.entries.map((entry) => entry.id));
      auditCursor = page.nextCursor ?? undefined;
    } while (auditCursor);
    expect(decisions).toHaveLength(DECISIONS / 2);
    expect(new Set(decisions).size).toBe(DECISIONS / 2);
    expect(decisions).toEqual([...decisions].sort().reverse());
  });

  it('CSV export: the whole filtered set (not capped at 500), streamed one keyset page per pull; people found by name or email', async () => {
    await db.$executeRaw`INSERT INTO users (id, name, email, role) VALUES ('reviewer-rita', 'Rita Reviewer', 'rita@example.com', 'reviewer') ON CONFLICT (id) DO NOTHING`;
    const read = async (stream: ReadableStream<Uint8Array>) => {
      const chunks: string[] = [];
      // ignoreBOM: keep the byte-order mark the export starts with (a decoder drops it by default).
      const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
      for await (const chunk of stream) chunks.push(decoder.decode(chunk, { stream: true }));
      return chunks;
    };
    const chunks = await read(auditCsvStream(auditQuerySchema.parse({ format: 'csv', person: 'RITA@example', limit: 10 }), db));
    const lines = chunks.join('').split('\r\n').filter(Boolean);
    // The byte-order mark, then the header: each person id with the person's name and email beside it.
    expect(lines[0]).toMatch(/^\uFEFFat,actorId,actorName,actorEmail,actorRole,kind/);
    expect(lines).toHaveLength(1 + DECISIONS / 2 + 1);
    expect(lines.slice(1, -1).every((line) => line.split(',').slice(1, 4).join() === 'reviewer-rita,Rita Reviewer,rita@example.com')).toBe(true);
    expect(lines.at(-1)).toBe(`# End of export: ${DECISIONS / 2} decisions`);
    // Header, then one chunk per page of CSV_PAGE rows, then the end comment line once the last page was read.
    expect(chunks).toHaveLength(1 + Math.ceil(DECISIONS / 2 / CSV_PAGE) + 1);
    expect(chunks.at(-1)).toMatch(/^# End of export/);
    // Nothing matches: the header and the end comment line.
    expect((await read(auditCsvStream(auditQuerySchema.parse({ format: 'csv', person: 'Lovelace' }), db))).join('').split('\r\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^\uFEFFat,actorId/),
      '# End of export: 0 decisions',
    ]);

    // Backpressure: a reader that takes only the first rows leaves the rest unread.
    const stream = auditCsvStream(auditQuerySchema.parse({ format: 'csv' }), db);
    const reader = stream.getReader();
    await reader.read();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value).split('\r\n').filter(Boolean)).toHaveLength(CSV_PAGE);
    await reader.cancel();
  });
});

describe('inbox sort orders', () => {
  beforeAll(async () => {
    // Every 7th call gets a deadline; 1,000 distinct deadlines over ~2,900 calls, so deadlines tie too.
    await db.$executeRaw`
      UPDATE pending_tool_calls SET deadline_action = 'decline',
        deadline_at = timestamptz '2026-06-01 00:00:00+00' + ((substr(id, 3)::int * 37) % 1000) * interval '1 second'
      WHERE substr(id, 3)::int % 7 = 0`;
    await db.$executeRaw`ANALYZE pending_tool_calls`;
  }, 60_000);

  /** Every id of the pending list in `sort` order, read page by page through listInbox. */
  async function walk(sort: 'oldest' | 'deadline', limit: number) {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listInbox({ ...inboxQuerySchema.parse({ sort, cursor }), limit }, db);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return seen;
  }

  it('oldest first: the cursor is a row comparison in the index condition of the created_at index, read backwards', async () => {
    const first = await listInbox(inboxQuerySchema.parse({ limit: 50, sort: 'oldest' }), db);
    expect(first.items[0].id).toBe('p-000001');
    const [after] = await db.$queryRaw<{ createdAt: Date; id: string }[]>`
      SELECT created_at AS "createdAt", id FROM pending_tool_calls WHERE status = 'pending' ORDER BY created_at, id OFFSET 15000 LIMIT 1`;
    const nodes = await explain(inboxPageQuery(inboxQuerySchema.parse({ limit: 50, sort: 'oldest' }), after));
    expect(nodes.some((node) => node['Node Type'] === 'Sort')).toBe(false);
    const scan = nodes.find((node) => node['Index Name'] === 'pending_tool_calls_status_created_at_id_idx');
    expect(scan, JSON.stringify(nodes)).toBeDefined();
    expect(scan!['Index Cond']).toMatch(/\(ROW\(created_at, id\) > ROW\(/);
    expect(scan!['Actual Rows']).toBe(51);
  });

  it('deadline soonest: the expression index serves the order and the cursor; no Sort at any depth', async () => {
    const first = await listInbox(inboxQuerySchema.parse({ limit: 50, sort: 'deadline' }), db);
    const [soonest] = await db.$queryRaw<{ deadlineAt: Date }[]>`SELECT min(deadline_at) AS "deadlineAt" FROM pending_tool_calls WHERE status = 'pending'`;
    expect(first.items[0].deadlineAt).toBe(soonest.deadlineAt.toISOString());
    expect(first.items.every((item) => item.deadlineAt !== null)).toBe(true);
    const [after] = await db.$queryRaw<{ sortAt: Date; createdAt: Date; id: string }[]>`
      SELECT coalesce(deadline_at, '9999-12-31 00:00:00+00'::timestamptz) AS "sortAt", created_at AS "createdAt", id FROM pending_tool_calls
      WHERE status = 'pending' ORDER BY 1, created_at, id OFFSET 2000 LIMIT 1`;
    const nodes = await explain(inboxPageQuery(inboxQuerySchema.parse({ limit: 50, sort: 'deadline' }), after));
    expect(nodes.some((node) => node['Node Type'] === 'Sort')).toBe(false);
    const scan = nodes.find((node) => node['Index Name'] === 'pending_tool_calls_status_deadline_key_created_at_id_idx');
    expect(scan, JSON.stringify(nodes)).toBeDefined();
    expect(scan!['Index Cond']).toMatch(/ROW\(COALESCE\(deadline_at/);
    expect(scan!['Actual Rows']).toBe(51);
  });

  it('paging by cursor visits every row once, in each order: oldest first; soonest deadline, ties by age, then calls without a deadline oldest first', async () => {
    const oldest = await db.$queryRaw<{ id: string }[]>`SELECT id FROM pending_tool_calls WHERE status = 'pending' ORDER BY created_at, id`;
    expect(await walk('oldest', 499)).toEqual(oldest.map((row) => row.id));
    const byDeadline = await db.$queryRaw<{ id: string }[]>`
      SELECT id FROM pending_tool_calls WHERE status = 'pending' ORDER BY deadline_at ASC NULLS LAST, created_at, id`;
    const seen = await walk('deadline', 499);
    expect(seen).toHaveLength(byDeadline.length);
    expect(seen).toEqual(byDeadline.map((row) => row.id));
  });

  it('a cursor of another order, or edited, is refused with 400 INVALID_CURSOR', async () => {
    const newest = await listInbox(inboxQuerySchema.parse({ limit: 5 }), db);
    await expect(listInbox(inboxQuerySchema.parse({ limit: 5, sort: 'deadline', cursor: newest.nextCursor! }), db)).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_CURSOR',
    });
    expect(() => inboxQuerySchema.parse({ sort: 'priority' })).toThrow();
  });
});
