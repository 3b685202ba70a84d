/**
 * The inbox keyset bench: 1,000,000 pending calls in a database of their own, and the first page
 * and a page after 900,000 rows read through `listInbox` — the very function GET /api/inbox calls,
 * so the query measured is the route's.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createCountersignSystem } from './countersign';
import { summarise, type Summary } from './stats';

/** Runs and threads the seeded calls hang off (the schema's foreign keys want them). */
const SEED_RUNS = 1_000;

/**
 * Inserts `count` copies of the row `id` of `table`: every column is copied from it (so columns
 * added by later migrations get what the app wrote) except those in `overrides`, SQL expressions
 * of the series number `g` (from `first`).
 */
async function copyRows(client: pg.Client, table: string, id: string, count: number, overrides: Record<string, string>, first = 0) {
  const { rows: columns } = await client.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'
     ORDER BY ordinal_position`,
    [table],
  );
  const names = columns.map(({ name }) => `"${name}"`).join(', ');
  const values = columns.map(({ name }) => overrides[name] ?? `t."${name}"`).join(', ');
  await client.query(
    `INSERT INTO "${table}" (${names}) SELECT ${values} FROM "${table}" t, generate_series(${first}, ${first} + $2::int - 1) AS g WHERE t.id = $1`,
    [id, count],
  );
}

/**
 * Seeds `rows` pending approval calls with generate_series, unless exactly that many seeded rows
 * are there already. The rows are copies of one pending call (and its run and thread) that the
 * runtime itself creates first, so every column — also ones added by later migrations — holds
 * what the app would write; only ids, the owning run and thread (1,000 of each) and the time
 * differ. Four calls share each millisecond, so pages also cross ties that the id breaks.
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

    const template = createCountersignSystem(databaseUrl, { poolSize: 2 });
    const threadId = `bench-template-${randomUUID()}`;
    let paused;
    try {
      paused = await template.client(0).start({ key: 'inbox-template', threadId }, () => {});
    } finally {
      await template.close();
    }
    const { rows: found } = await client.query<{ id: string }>('SELECT id FROM pending_tool_calls WHERE run_id = $1', [paused.runId]);
    if (found.length !== 1) throw new Error(`expected one pending call in the template run, found ${found.length}`);

    await copyRows(client, 'threads', threadId, SEED_RUNS, { id: `'bench-thread-' || g` });
    await copyRows(client, 'runs', paused.runId, SEED_RUNS, {
      id: `'bench-run-' || g`,
      thread_id: `'bench-thread-' || g`,
      message_id: `'bench-msg-' || g`,
    });
    await copyRows(client, 'pending_tool_calls', found[0].id, rows, {
      id: `'bench-pc-' || lpad(g::text, 8, '0')`,
      run_id: `'bench-run-' || (g % ${SEED_RUNS})`,
      root_run_id: `'bench-run-' || (g % ${SEED_RUNS})`,
      thread_id: `'bench-thread-' || (g % ${SEED_RUNS})`,
      tool_call_id: `'call-' || g`,
      root_tool_call_id: `'call-' || g`,
      args: `jsonb_build_object('key', 'inbox-' || g)`,
      created_at: `timestamptz '2026-01-01 00:00:00+00' + (g / 4) * interval '1 millisecond'`,
    }, 1);
    await client.query('DELETE FROM threads WHERE id = $1', [threadId]);
    const { rows: seeded } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pending_tool_calls WHERE status = 'pending'`);
    if (seeded[0].n !== rows) throw new Error(`seeded ${seeded[0].n} pending calls, expected ${rows}`);
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
 * @param databaseUrl the seeded database (read through a client of its own: the process-wide one
 *   may be the app's, on another database, when the HTTP column's in-process agent ran)
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
  const { listInbox, inboxQuerySchema } = await import('../lib/inbox/queries');
  const { encodeCursor } = await import('../lib/http/keyset');
  const { createPrismaClient } = await import('../lib/store/db');
  const db = createPrismaClient(options.databaseUrl, { maxConnections: 2 });

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
      const page = await listInbox(query, db);
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
    await db.$disconnect();
  }
}
