import type { ModelMessage } from 'ai';
import { randomUUID } from 'node:crypto';
import type { AgentChunk } from '@/lib/agent/chunks';
import type {
  AgentStore,
  CallOutcome,
  ClaimInput,
  Claimed,
  NewPendingCall,
  PendingCall,
  RunRecord,
  RunState,
  RunStatus,
  PolicyInputs,
  RunSummary,
  SuspendedRunsQuery,
} from '@/lib/agent/store';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { AgentError } from '@/lib/agent/errors';
import { RUN_IN_PROGRESS_MESSAGE } from '@/lib/agent/stop';
import { titleFromRequest } from './thread-title';
import type { Notifications } from './listen';
import { hotQuery } from './hot';
import { castVote, claimPendingCall } from './decision-statements';
import { listAbandonedRuns, markRunInterrupted, takeOverRun } from './recovery-statements';
import {
  closeOneCall,
  continuation,
  insertEvents,
  insertPendingCalls,
  json,
  jsonb,
  pendingColumns,
  pendingFromJson,
  seconds,
  toPendingCall,
  toRunRecord,
  type ContinuationRow,
  type PendingRow,
} from './rows';

/*
 * Why the hot path is single statements
 * -------------------------------------
 * An interactive transaction (`prisma.$transaction(async (tx) => …)`) holds a pooled connection from
 * BEGIN to COMMIT while the process goes back and forth: send a statement, wait for the event loop
 * to run the JavaScript that reads its result and builds the next one, send that, … On a busy
 * machine every one of those turns waits behind all other work of the process, so the
 * transaction's wall-clock life grows with the load, and with it the time it keeps its connection
 * and its row locks, which makes every other request wait longer too. Prisma bounds both waits
 * (`maxWait` for a connection, `timeout` for the whole transaction); past them it rolls the
 * transaction back from a timer and the next statement fails with P2028. A disconnect (a test
 * runner's teardown after a timeout, a server shutting down) tears down open transactions the same
 * way, and their next statement fails with P2028 "Transaction not found". Raising the limits only
 * moves the load at which decisions start failing.
 *
 * So nothing here holds a transaction across JavaScript. Each write is one SQL statement — its
 * data-modifying CTEs commit together or not at all, and PostgreSQL runs it without waiting on this
 * process — and the compare-and-set conditions live in the statement's WHERE clauses, which
 * PostgreSQL re-checks on the newest row version when a concurrent statement got there first (READ
 * COMMITTED). Waiting for a pooled connection has no limit: a busy process is slower, never wrong.
 * Where one statement must see what concurrent ones did (who closes a step's last call), the
 * fact lives on one row (`runs.open_calls`), whose row lock serialises the writers.
 */

/**
 * The runtime's store on PostgreSQL via Prisma. Each write is one SQL statement (see above);
 * claims are compare-and-set updates so exactly one decision wins across processes. Source: behaviour §5, §10.
 */
/** The NOTIFY channel a Stop is announced on (payload: the run id); listen.ts listens on it. */
const STOP_CHANNEL = 'countersign_run_stop';

export class PrismaAgentStore implements AgentStore {
  /**
   * @param hooks.afterSuspend called once a pause is committed, with the new pending calls (e.g. to
   *   notify reviewers); it must not throw or block (save first, then publish)
   * @param hooks.notifications where a Stop is heard (see `onStopRequested`)
   */
  constructor(
    private readonly db: PrismaClient,
    private readonly hooks: {
      afterSuspend?: (calls: NewPendingCall[]) => void;
      /**
       * The process's LISTEN connection (listen.ts `notifications()`): a segment hears a Stop on its
       * run at once through it. Without it, a Stop is heard at the segment's next lease renewal.
       */
      notifications?: Pick<Notifications, 'subscribe'>;
    } = {},
  ) {}

  async startRun({ run, title, inputMessages, leaseMs }: Parameters<AgentStore['startRun']>[0]) {
    const input = inputMessages.map(({ id, message }) => ({ id, role: message.role, content: message.content }));
    // A new thread is titled by its first request, numbered "(2)", "(3)"… when its owner already
    // has an open thread of that title (the smallest free number; at most `count + 2` is needed).
    // The CASE runs its subqueries only for a thread that does not exist yet.
    const base = titleFromRequest(title ?? '');
    const numbered = `${base.replace(/[\\%_]/g, '\\$&')} (%)`;
    const rows = await hotQuery<{ history: ModelMessage[]; open: PendingRow[]; waiting: { runId: string; state: RunState }[] }[]>(this.db, Prisma.sql`
      WITH input AS (SELECT ${jsonb(run.state)} AS state),
      thread AS (
        INSERT INTO threads (id, resource_id, agent_id, running_run_id, title)
        VALUES (${run.threadId}, ${run.resourceId}, ${run.agentId}, ${run.id}, (
          SELECT CASE
            WHEN EXISTS (SELECT 1 FROM threads t WHERE t.id = ${run.threadId}) THEN ${base}::text
            WHEN NOT EXISTS (
              SELECT 1 FROM threads t WHERE t.resource_id = ${run.resourceId} AND t.deleted_at IS NULL AND t.title = ${base}::text
            ) THEN ${base}::text
            ELSE ${base}::text || ' (' || (
              SELECT min(n) FROM generate_series(2, 2 + (
                SELECT count(*)::int FROM threads t
                WHERE t.resource_id = ${run.resourceId} AND t.deleted_at IS NULL AND t.title LIKE ${numbered}::text ESCAPE '\\'
              )) AS n
              WHERE NOT EXISTS (
                SELECT 1 FROM threads t
                WHERE t.resource_id = ${run.resourceId} AND t.deleted_at IS NULL AND t.title = ${base}::text || ' (' || n || ')'
              )
            ) || ')'
          END
        ))
        -- One turn at a time: the thread row's lock serialises two sends, and this condition is
        -- re-checked on its newest version, so exactly one of them finds no running run.
        ON CONFLICT (id) DO UPDATE SET updated_at = now(), running_run_id = excluded.running_run_id
          WHERE threads.resource_id = excluded.resource_id AND threads.deleted_at IS NULL AND threads.running_run_id IS NULL
        RETURNING id
      ),
      history AS (
        SELECT coalesce(jsonb_agg(jsonb_build_object('role', m.role, 'content', m.content) ORDER BY m.seq), '[]'::jsonb) AS messages
        FROM messages m WHERE m.thread_id = ${run.threadId}
      ),
      run AS (
        INSERT INTO runs (id, thread_id, resource_id, requested_by, agent_id, parent_run_id, message_id, status, state, lease_expires_at)
        SELECT ${run.id}, thread.id, ${run.resourceId}, ${run.requestedBy}, ${run.agentId}, NULL, ${run.messageId}, 'running',
          jsonb_set(
            jsonb_set(input.state, '{messages}', history.messages || (input.state -> 'messages')),
            '{historyLength}', to_jsonb(jsonb_array_length(history.messages) + (input.state ->> 'historyLength')::int)
          ),
          now() + make_interval(secs => ${seconds(leaseMs)})
        FROM thread, history, input
        RETURNING id
      ),
      message AS (
        -- Every input message, in order (seq follows the ORDER BY).
        INSERT INTO messages (id, thread_id, role, content, run_id)
        SELECT m.value ->> 'id', ${run.threadId}, m.value ->> 'role', m.value -> 'content', run.id
        FROM run, jsonb_array_elements(${jsonb(input)}) WITH ORDINALITY AS m(value, ord)
        ORDER BY m.ord
      ),
      -- What still waits on the thread, for the new turn's model and its check for twins (behaviour §5a).
      open AS (SELECT ${pendingColumns('p')}, p.seq FROM pending_tool_calls p WHERE p.thread_id = ${run.threadId} AND p.status = 'pending'),
      waiting AS (
        SELECT r.id AS "runId", r.state, (SELECT min(o.seq) FROM open o WHERE o."rootRunId" = r.id) AS first
        FROM runs r WHERE r.id IN (SELECT "rootRunId" FROM open) AND r.parent_run_id IS NULL AND r.state IS NOT NULL
      )
      SELECT history.messages AS history,
        (SELECT coalesce(json_agg(o ORDER BY o.seq), '[]') FROM open o) AS open,
        (SELECT coalesce(json_agg(json_build_object('runId', w."runId", 'state', w.state) ORDER BY w.first), '[]') FROM waiting w) AS waiting
      FROM run, history`);
    if (rows.length === 0) {
      // Nothing was written; only now is it read why.
      const thread = await this.db.thread.findUnique({ where: { id: run.threadId }, select: { resourceId: true, deletedAt: true, runningRunId: true } });
      if (thread && thread.resourceId === run.resourceId && !thread.deletedAt && thread.runningRunId) {
        throw new AgentError('RUN_IN_PROGRESS', RUN_IN_PROGRESS_MESSAGE, { runId: thread.runningRunId });
      }
      throw new Error(`Thread ${run.threadId} belongs to another resource or was deleted`);
    }
    return { history: rows[0].history, open: rows[0].open.map(pendingFromJson), waiting: rows[0].waiting };
  }

  async startChildRun({ run, delegation }: { run: RunRecord; delegation: NewPendingCall }) {
    await hotQuery(this.db, Prisma.sql`
      WITH child AS (
        INSERT INTO runs (id, thread_id, resource_id, requested_by, agent_id, parent_run_id, message_id, status, state)
        VALUES (${run.id}, ${run.threadId}, ${run.resourceId}, ${run.requestedBy}, ${run.agentId}, ${run.parentRunId}, ${run.messageId}, ${run.status}, ${jsonb(run.state)})
      ),
      delegation AS (${insertPendingCalls([delegation], 'waiting')}),
      parent AS (UPDATE runs SET open_calls = open_calls + 1 WHERE id = ${delegation.runId})
      SELECT 1`);
  }

  async addUserMessage({ threadId, runId, message }: { threadId: string; runId: string; message: ModelMessage }) {
    await this.db.message.create({
      data: { id: randomUUID(), threadId, role: message.role, content: json(message.content), runId },
    });
  }

  async loadRun({ runId }: { runId: string }) {
    const row = await this.db.run.findUnique({ where: { id: runId } });
    return row ? toRunRecord(row) : null;
  }

  async loadDecisionTarget({ rootRunId }: { rootRunId: string }) {
    const rows = await hotQuery<(Omit<RunSummary, 'status'> & { status: string; calls: PendingRow[] | null; policyInputs: Record<string, PolicyInputs> | null })[]>(this.db, Prisma.sql`
      SELECT r.id, r.thread_id AS "threadId", r.resource_id AS "resourceId", r.requested_by AS "requestedBy", r.agent_id AS "agentId",
        r.parent_run_id AS "parentRunId", r.message_id AS "messageId", r.status, r.state IS NOT NULL AS "hasState",
        (SELECT json_agg(p ORDER BY p.seq) FROM (SELECT ${pendingColumns('c')}, c.seq FROM pending_tool_calls c WHERE c.root_run_id = r.id) p) AS calls,
        (SELECT jsonb_object_agg(w.id, jsonb_build_object('requestContext', w.state->'requestContext', 'requestApproval', w.state->'requestApproval'))
          FROM runs w WHERE w.state IS NOT NULL
            AND w.id IN (SELECT o.run_id FROM pending_tool_calls o WHERE o.root_run_id = r.id AND o.status = 'pending')) AS "policyInputs"
      FROM runs r WHERE r.id = ${rootRunId}`);
    const [row] = rows;
    if (!row) return { run: null, calls: [], policyInputs: {} };
    const { calls, policyInputs, ...run } = row;
    return {
      run: { ...run, status: run.status as RunStatus },
      calls: (calls ?? []).map(pendingFromJson),
      policyInputs: policyInputs ?? {},
    };
  }

  async appendEvents({ runId, chunks }: { runId: string; chunks: AgentChunk[] }) {
    if (chunks.length === 0) return;
    await this.db.runEvent.createMany({ data: chunks.map((chunk) => ({ runId, chunk: json(chunk) })) });
  }

  async suspendRun({ runId, state, pendingCalls, events, finalEvents = [] }: Parameters<AgentStore['suspendRun']>[0]) {
    const rows = await hotQuery<{ status: string }[]>(this.db, Prisma.sql`
      WITH pending AS (${insertPendingCalls(pendingCalls, 'pending')}),
      run AS (
        UPDATE runs SET
          state = ${jsonb(state)},
          open_calls = open_calls + ${pendingCalls.length},
          status = CASE WHEN open_calls + ${pendingCalls.length} = 0 THEN 'running' ELSE 'suspended' END,
          -- A Stop that came too late for this pause is not kept for the run's continuation.
          stop_requested_at = CASE WHEN open_calls + ${pendingCalls.length} = 0 THEN stop_requested_at END,
          updated_at = now()
        WHERE id = ${runId}
        RETURNING status
      ),
      events AS (${insertEvents(runId, [...events, ...finalEvents], Prisma.sql`e.n <= ${events.length} OR (SELECT status FROM run) = 'suspended'`)})
      SELECT status FROM run`);
    if (rows.length === 0) throw new Error(`No run ${runId}`);
    if (pendingCalls.length > 0) this.hooks.afterSuspend?.(pendingCalls);
    return rows[0].status === 'running';
  }

  async saveRunState({ runId, state, events }: { runId: string; state: RunState; events: AgentChunk[] }) {
    await hotQuery(this.db, Prisma.sql`
      WITH events AS (${insertEvents(runId, events)})
      UPDATE runs SET state = ${jsonb(state)}, updated_at = now() WHERE id = ${runId}`);
  }

  async finishRun({ runId, status, error, events, newMessages }: Parameters<AgentStore['finishRun']>[0]) {
    const messages = newMessages.map((message) => ({ id: randomUUID(), role: message.role, content: message.content }));
    // The resume state goes; conversation, events, pending rows and decisions stay (behaviour §5).
    await hotQuery(this.db, Prisma.sql`
      WITH events AS (${insertEvents(runId, events)}),
      run AS (
        UPDATE runs SET status = ${status}, error = ${error ?? null}, state = NULL, updated_at = now()
        WHERE id = ${runId}
        RETURNING thread_id, parent_run_id
      )
      INSERT INTO messages (id, thread_id, role, content, run_id)
      SELECT m.message ->> 'id', run.thread_id, m.message ->> 'role', m.message -> 'content', ${runId}
      FROM run, jsonb_array_elements(${jsonb(messages)}) WITH ORDINALITY AS m(message, n)
      WHERE run.parent_run_id IS NULL
      ORDER BY m.n`);
  }

  async listPendingCalls({ runId }: { runId: string }) {
    const rows = await this.db.pendingToolCall.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    return rows.map(toPendingCall);
  }

  async closeDelegation({ childRunId, status, output }: { childRunId: string; status: 'completed' | 'failed'; output: CallOutcome }) {
    const rows = await hotQuery<ContinuationRow[]>(this.db, Prisma.sql`
      WITH delegation AS (
        UPDATE pending_tool_calls SET status = ${status}, output = ${jsonb(output)}
        WHERE child_run_id = ${childRunId} AND kind = 'delegation' AND status = 'waiting'
        RETURNING run_id
      ),
      ${closeOneCall(Prisma.sql`(SELECT run_id FROM delegation)`)}
      SELECT * FROM closed_run`);
    return continuation(rows);
  }

  async findOpenPendingCalls({ threadId, resourceId, runId }: { threadId?: string; resourceId?: string; runId?: string }) {
    const rows = await this.db.pendingToolCall.findMany({
      where: { status: 'pending', threadId, resourceId, runId },
      orderBy: { seq: 'asc' },
    });
    return rows.map(toPendingCall);
  }

  claimPendingCall(input: ClaimInput): Promise<Claimed | null> {
    return claimPendingCall(this.db, input);
  }

  castVote(input: Parameters<AgentStore['castVote']>[0]) {
    return castVote(this.db, input);
  }

  async closePendingCall(input: Parameters<AgentStore['closePendingCall']>[0]) {
    const output = input.output === null ? Prisma.sql`NULL::jsonb` : jsonb(input.output);
    const close = Prisma.sql`
      events AS (${insertEvents(input.runId, input.events)}),
      call AS (
        UPDATE pending_tool_calls SET status = ${input.status}, output = ${output}
        WHERE id = ${input.pendingCallId}
        RETURNING run_id
      )`;
    if (input.newPendingCall) {
      // A re-suspension closes one call and opens another in its place: the count stays, nobody continues.
      await hotQuery(this.db, Prisma.sql`WITH ${close}, reopened AS (${insertPendingCalls([input.newPendingCall], 'pending')}) SELECT 1`);
      return null;
    }
    const rows = await hotQuery<ContinuationRow[]>(this.db, Prisma.sql`
      WITH ${close}, ${closeOneCall(Prisma.sql`(SELECT run_id FROM call)`)}
      SELECT * FROM closed_run`);
    return continuation(rows);
  }

  async renewLease({ runId, ms }: { runId: string; ms: number }) {
    const rows = await hotQuery<{ stop: boolean }[]>(this.db, Prisma.sql`
      UPDATE runs SET lease_expires_at = now() + make_interval(secs => ${seconds(ms)}) WHERE id = ${runId}
      RETURNING stop_requested_at IS NOT NULL AND status = 'running' AS stop`);
    return { stopRequested: rows[0]?.stop ?? false };
  }

  async requestStop({ threadId }: { threadId: string }) {
    // The thread's running run (the trigger of migration 20261206100000 keeps `running_run_id`),
    // marked and announced in one statement; the NOTIFY is delivered at commit, to every server.
    const rows = await hotQuery<{ runId: string }[]>(this.db, Prisma.sql`
      WITH stopped AS (
        UPDATE runs r SET stop_requested_at = coalesce(r.stop_requested_at, now())
        FROM threads t
        WHERE t.id = ${threadId} AND r.id = t.running_run_id AND r.status = 'running' AND r.parent_run_id IS NULL
        RETURNING r.id
      )
      SELECT id AS "runId", pg_notify(${STOP_CHANNEL}, id) IS NULL AS notified FROM stopped`);
    return rows[0] ? { runId: rows[0].runId } : null;
  }

  async onStopRequested(runId: string, listener: () => void): Promise<() => void> {
    if (!this.hooks.notifications) return () => {};
    return this.hooks.notifications.subscribe(STOP_CHANNEL, (payload) => {
      if (payload === runId) listener();
    });
  }

  listAbandonedRuns(input: { before: Date; limit: number }) {
    return listAbandonedRuns(this.db, input);
  }

  takeOverRun(input: { runId: string; leaseMs: number }) {
    return takeOverRun(this.db, input);
  }

  markRunInterrupted(input: Parameters<AgentStore['markRunInterrupted']>[0]) {
    return markRunInterrupted(this.db, input);
  }

  /**
   * Top-level runs with calls waiting on a person, newest first, with their waiting calls (their own
   * and their sub-agents'), and how many runs match. One statement, so the page and `total` come
   * from one snapshot: a decision committed before the statement is in neither, one committed after
   * in both. A run is listed while it has a `pending` row; its status is not consulted (after a
   * claim the run stays `suspended` until its continuation starts, but the call no longer waits).
   * `suspendedAt` is when its newest waiting call was raised; fromDate/toDate bound it.
   */
  async listSuspendedRuns(query: SuspendedRunsQuery) {
    const conditions = [
      Prisma.sql`p.status = 'pending'`,
      Prisma.sql`p.kind IN ('approval', 'suspension')`,
      Prisma.sql`r.parent_run_id IS NULL`,
      ...(query.agentId !== undefined ? [Prisma.sql`r.agent_id = ${query.agentId}`] : []),
      ...(query.threadId !== undefined ? [Prisma.sql`r.thread_id = ${query.threadId}`] : []),
      ...(query.resourceId !== undefined ? [Prisma.sql`r.resource_id = ${query.resourceId}`] : []),
    ];
    // Times as ISO 8601 text with their offset (the same instant in any session time zone).
    const range = [
      ...(query.fromDate ? [Prisma.sql`suspended_at >= ${query.fromDate.toISOString()}::timestamptz`] : []),
      ...(query.toDate ? [Prisma.sql`suspended_at <= ${query.toDate.toISOString()}::timestamptz`] : []),
    ];
    const paginate = query.page !== undefined && query.perPage !== undefined;
    const rows = await this.db.$queryRaw<(PendingRow & { total: number; suspendedAt: Date | null })[]>`
      WITH matching AS (
        SELECT p.root_run_id AS run_id, max(p.created_at) AS suspended_at
        FROM pending_tool_calls p JOIN runs r ON r.id = p.root_run_id
        WHERE ${Prisma.join(conditions, ' AND ')}
        GROUP BY p.root_run_id
      ), in_range AS (
        SELECT * FROM matching ${range.length > 0 ? Prisma.sql`WHERE ${Prisma.join(range, ' AND ')}` : Prisma.empty}
      ), page AS (
        SELECT * FROM in_range ORDER BY suspended_at DESC, run_id DESC
        ${paginate ? Prisma.sql`LIMIT ${query.perPage!} OFFSET ${query.page! * query.perPage!}` : Prisma.empty}
      )
      SELECT (SELECT count(*) FROM in_range)::int AS total, page.suspended_at AS "suspendedAt", ${pendingColumns('p')}
      FROM (SELECT 1) AS always_one_row
      LEFT JOIN (
        page JOIN pending_tool_calls p
          ON p.root_run_id = page.run_id AND p.status = 'pending' AND p.kind IN ('approval', 'suspension')
      ) ON true
      ORDER BY page.suspended_at DESC, page.run_id DESC, p.seq`;
    const runs = new Map<string, { runId: string; threadId: string; resourceId: string; suspendedAt: Date; calls: PendingCall[] }>();
    for (const row of rows) {
      if (row.id === null || row.suspendedAt === null) continue; // the page is empty: only `total`
      const run = runs.get(row.rootRunId) ?? { runId: row.rootRunId, threadId: row.threadId, resourceId: row.resourceId, suspendedAt: row.suspendedAt, calls: [] };
      run.calls.push(toPendingCall(row));
      runs.set(row.rootRunId, run);
    }
    return { total: rows[0]?.total ?? 0, runs: [...runs.values()] };
  }
}
