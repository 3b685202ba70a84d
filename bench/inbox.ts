/**
 * The inbox keyset bench: 1,000,000 pending calls in a database of their own, and the first page
 * and a page after 900,000 rows read through `listInbox` — the very function GET /api/inbox calls,
 * so the query measured is the route's.
 */
import pg from 'pg';
import type { Summary } from './stats';
import { summarise } from './stats';

/** Runs and threads the seeded calls hang off (the schema's foreign keys want them). */
const SEED_RUNS = 1_000;

/**
 * Seeds `rows` pending approval calls with generate_series (threads and runs as their foreign keys
 * need), unless exactly that many seeded rows are there already. Four calls share each
 * millisecond, so pages also cross ties that the id breaks.
 *
 * @returns whether it seeded (false: reused)
 */
export async function seedPendingCalls(databaseUrl: string, rows: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: existing } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pending_tool_calls WHERE id LIKE 'bench-pc-%'`);
    if (existing[0].n === rows) return false;
    await client.query('TRUNCATE pending_tool_calls, runs, threads CASCADE');
    await client.query(
      `INSERT INTO threads (id, resource_id, agent_id, title)
       SELECT 'bench-thread-' || g, 'bench-user-' || (g % 50), 'ops-agent', 'Bench ' || g
       FROM generate_series(0, $1::int - 1) AS g`,
      [SEED_RUNS],
    );
    await client.query(
      `INSERT INTO runs (id, thread_id, resource_id, agent_id, message_id, status, state)
       SELECT 'bench-run-' || g, 'bench-thread-' || g, 'bench-user-' || (g % 50), 'ops-agent', 'bench-msg-' || g, 'suspended', '{}'::jsonb
       FROM generate_series(0, $1::int - 1) AS g`,
      [SEED_RUNS],
    );
    await client.query(
      `INSERT INTO pending_tool_calls (id, run_id, tool_call_id, kind, status, tool_name, args, fingerprint, approvers, policy,
         resume_schema, thread_id, resource_id, agent_id, chain, root_run_id, root_tool_call_id, created_at)
       SELECT 'bench-pc-' || lpad(g::text, 8, '0'),
              'bench-run-' || (g % $2::int),
              'call-' || g,
              'approval', 'pending',
              (ARRAY['delete-record', 'send-email', 'issue-refund'])[1 + g % 3],
              jsonb_build_object('id', 'rec-' || g),
              md5(g::text), 'requester', 'tool', '{}',
              'bench-thread-' || (g % $2::int),
              'bench-user-' || ((g % $2::int) % 50),
              'ops-agent', ARRAY['ops-agent'],
              'bench-run-' || (g % $2::int),
              'call-' || g,
              timestamptz '2026-01-01 00:00:00+00' + (g / 4) * interval '1 millisecond'
       FROM generate_series(1, $1::int) AS g`,
      [rows, SEED_RUNS],
    );
    await client.query('VACUUM ANALYZE pending_tool_calls');
    return true;
  } finally {
    await client.end();
  }
}

/** First and deep page timings of the inbox query. */
export interface InboxResult {
  rows: number;
  pageSize: number;
  /** rows before the deep page */
  depth: number;
  firstPage: Summary | null;
  deepPage: Summary | null;
  /** whether this run seeded the rows (false: they were there from an earlier run) */
  seeded: boolean;
}

/**
 * Times `listInbox` for the first page and for the page after `depth` rows, `count` times each
 * (after 3 warm-up calls), stopping a figure early once `budgetMs` is spent (at least 5 samples).
 * Checks that each page starts at the row it should.
 *
 * @param databaseUrl the seeded database; `listInbox` reads `DATABASE_URL`, so it is set to this
 * @throws when a page starts at the wrong row
 */
export async function inboxBench(options: {
  databaseUrl: string;
  rows: number;
  depth: number;
  count: number;
  budgetMs: number;
  seeded: boolean;
}): Promise<InboxResult> {
  process.env.DATABASE_URL = options.databaseUrl;
  const { listInbox, inboxQuerySchema } = await import('../lib/inbox/queries');
  const { encodeCursor } = await import('../lib/http/keyset');
  const { prisma } = await import('../lib/store/db');

  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  const rowAt = async (offset: number) =>
    (
      await client.query<{ id: string; created_at: Date }>(
        `SELECT id, created_at FROM pending_tool_calls WHERE status = 'pending' ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1`,
        [offset],
      )
    ).rows[0];
  const newest = await rowAt(0);
  const lastBefore = await rowAt(options.depth - 1);
  const firstAfter = await rowAt(options.depth);
  await client.end();

  const first = inboxQuerySchema.parse({});
  const deep = inboxQuerySchema.parse({ cursor: encodeCursor({ createdAt: lastBefore.created_at, id: lastBefore.id }) });
  const time = async (query: typeof first, expectedFirstId: string) => {
    const samples: number[] = [];
    const started = performance.now();
    for (let i = 0; i < options.count + 3; i++) {
      const t0 = performance.now();
      const page = await listInbox(query);
      const elapsed = performance.now() - t0;
      if (page.items[0]?.id !== expectedFirstId || page.items.length !== query.limit) {
        throw new Error(`inbox page starts at ${page.items[0]?.id} with ${page.items.length} items; expected ${expectedFirstId} and ${query.limit}`);
      }
      if (i >= 3) samples.push(elapsed);
      if (samples.length >= 5 && performance.now() - started > options.budgetMs) break;
    }
    return summarise(samples);
  };
  try {
    return {
      rows: options.rows,
      pageSize: first.limit,
      depth: options.depth,
      firstPage: await time(first, newest.id),
      deepPage: await time(deep, firstAfter.id),
      seeded: options.seeded,
    };
  } finally {
    await prisma().$disconnect();
  }
}
