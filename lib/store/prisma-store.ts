import type { ModelMessage } from 'ai';
import { randomUUID } from 'node:crypto';
import type { AgentChunk, DecisionSummary } from '@/lib/agent/chunks';
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
  RunSummary,
  SuspendedRunsQuery,
} from '@/lib/agent/store';
import { CALL_ID_SEPARATOR } from '@/lib/agent/call-id';
import type { PolicyEvaluation } from '@/lib/agent/data-policy';
import type { Approvers } from '@/lib/agent/tool';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { titleFromRequest } from './thread-title';
import { hotQuery } from './hot';
import { decisionDataHash } from '@/lib/audit/chain';

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

/** A pending_tool_calls row as Prisma reads it (and as `pendingColumns` names raw columns). */
export type PendingRow = Prisma.PendingToolCallGetPayload<object>;
type RunRow = Prisma.RunGetPayload<object>;

const json = (value: unknown) => (value ?? null) as Prisma.InputJsonValue;
/** A jsonb parameter of a raw statement (JSON text, cast by PostgreSQL). */
const jsonb = (value: unknown) => Prisma.sql`${JSON.stringify(value ?? null)}::jsonb`;
const seconds = (ms: number) => ms / 1000;

/**
 * A `pending_tool_calls` row (as Prisma or a hot statement's `to_jsonb` returns it) as the runtime's
 * PendingCall: field for field, with JSON columns typed and nulls kept.
 */
export function toPendingCall(row: PendingRow): PendingCall {
  return {
    id: row.id,
    runId: row.runId,
    toolCallId: row.toolCallId,
    kind: row.kind as PendingCall['kind'],
    status: row.status as PendingCall['status'],
    toolName: row.toolName,
    args: row.args,
    fingerprint: row.fingerprint,
    approvers: row.approvers as Approvers,
    policy: row.policy,
    policyVersion: row.policyVersion,
    policyEvaluation: (row.policyEvaluation as unknown as PolicyEvaluation | null) ?? null,
    quorum: row.quorum ?? null,
    approvedBy: row.approvedBy ?? [],
    suspendPayload: row.suspendPayload,
    resumeSchema: row.resumeSchema,
    threadId: row.threadId,
    resourceId: row.resourceId,
    requestedBy: row.requestedBy,
    agentId: row.agentId,
    chain: row.chain,
    rootRunId: row.rootRunId,
    rootToolCallId: row.rootToolCallId,
    childRunId: row.childRunId,
    output: (row.output as CallOutcome | null) ?? null,
    resumeData: row.resumeData,
    decisionReason: row.decisionReason,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    createdAt: row.createdAt,
    deadlineAt: row.deadlineAt ?? null,
    deadlineAction: (row.deadlineAction as PendingCall['deadlineAction']) ?? null,
    deadlineReason: row.deadlineReason ?? null,
    escalatedAt: row.escalatedAt ?? null,
    assignedToRole: row.assignedToRole ?? null,
  };
}

function toRunRecord(
  row: Pick<RunRow, 'id' | 'threadId' | 'resourceId' | 'requestedBy' | 'agentId' | 'parentRunId' | 'messageId' | 'status' | 'state'>,
): RunRecord {
  return {
    id: row.id,
    threadId: row.threadId,
    resourceId: row.resourceId,
    requestedBy: row.requestedBy,
    agentId: row.agentId,
    parentRunId: row.parentRunId,
    messageId: row.messageId,
    status: row.status as RunStatus,
    state: (row.state as unknown as RunState | null) ?? null,
  };
}

/** A pending row's columns under the names Prisma gives them, for raw statements (`toPendingCall` reads them). */
export const pendingColumns = (alias: string) =>
  Prisma.raw(
    [
      'id',
      'run_id AS "runId"',
      'tool_call_id AS "toolCallId"',
      'kind',
      'status',
      'tool_name AS "toolName"',
      'args',
      'fingerprint',
      'approvers',
      'policy',
      'policy_version AS "policyVersion"',
      'policy_evaluation AS "policyEvaluation"',
      'quorum',
      'approved_by AS "approvedBy"',
      'suspend_payload AS "suspendPayload"',
      'resume_schema AS "resumeSchema"',
      'thread_id AS "threadId"',
      'resource_id AS "resourceId"',
      'requested_by AS "requestedBy"',
      'agent_id AS "agentId"',
      'chain',
      'root_run_id AS "rootRunId"',
      'root_tool_call_id AS "rootToolCallId"',
      'child_run_id AS "childRunId"',
      'output',
      'resume_data AS "resumeData"',
      'decision_reason AS "decisionReason"',
      'decided_by AS "decidedBy"',
      'decided_at AS "decidedAt"',
      'created_at AS "createdAt"',
      'deadline_at AS "deadlineAt"',
      'deadline_action AS "deadlineAction"',
      'deadline_reason AS "deadlineReason"',
      'escalated_at AS "escalatedAt"',
      'assigned_to_role AS "assignedToRole"',
    ]
      .map((column) => `${alias}.${column}`)
      .join(', '),
  );

/** A pending row read through `json_agg` (timestamps arrive as text). */
const pendingFromJson = (call: PendingRow) =>
  toPendingCall({
    ...call,
    createdAt: new Date(call.createdAt),
    decidedAt: call.decidedAt && new Date(call.decidedAt),
    deadlineAt: call.deadlineAt && new Date(call.deadlineAt),
    escalatedAt: call.escalatedAt && new Date(call.escalatedAt),
  });

/** A run's columns under the names Prisma gives them, for raw statements. */
const runColumns = (alias: string) =>
  Prisma.raw(
    ['id', 'thread_id AS "threadId"', 'resource_id AS "resourceId"', 'requested_by AS "requestedBy"', 'agent_id AS "agentId"', 'parent_run_id AS "parentRunId"', 'message_id AS "messageId"', 'status', 'state']
      .map((column) => `${alias}.${column}`)
      .join(', '),
  );

/** `INSERT … SELECT` of chunks into a run's log, in order (for a CTE). */
const insertEvents = (runId: string, chunks: AgentChunk[], onlyIf: Prisma.Sql = Prisma.sql`TRUE`) => Prisma.sql`
  INSERT INTO run_events (run_id, chunk)
  SELECT ${runId}, e.chunk FROM jsonb_array_elements(${jsonb(chunks)}) WITH ORDINALITY AS e(chunk, n)
  WHERE ${onlyIf}
  ORDER BY e.n`;

/** `INSERT … SELECT` of new pending rows (for a CTE). */
const insertPendingCalls = (calls: NewPendingCall[], status: 'pending' | 'waiting') => {
  const rows = calls.map((call) => ({
    id: call.id,
    run_id: call.runId,
    tool_call_id: call.toolCallId,
    kind: call.kind,
    status,
    tool_name: call.toolName,
    args: call.args ?? null,
    fingerprint: call.fingerprint,
    approvers: call.approvers,
    policy: call.policy,
    policy_version: call.policyVersion,
    policy_evaluation: call.policyEvaluation,
    quorum: call.quorum,
    suspend_payload: call.suspendPayload ?? null,
    resume_schema: call.resumeSchema,
    thread_id: call.threadId,
    resource_id: call.resourceId,
    requested_by: call.requestedBy,
    agent_id: call.agentId,
    chain: call.chain,
    root_run_id: call.rootRunId,
    root_tool_call_id: call.rootToolCallId,
    child_run_id: call.childRunId,
    deadline_action: call.deadlineAfterMs ? call.deadlineAction : null,
    deadline_reason: call.deadlineAfterMs ? call.deadlineReason : null,
    // Not a column: the deadline is this long after the statement's time (the database's clock).
    deadline_after_ms: call.deadlineAfterMs ?? null,
  }));
  return Prisma.sql`
  INSERT INTO pending_tool_calls (id, run_id, tool_call_id, kind, status, tool_name, args, fingerprint, approvers, policy,
    policy_version, policy_evaluation, quorum,
    suspend_payload, resume_schema, thread_id, resource_id, requested_by, agent_id, chain, root_run_id, root_tool_call_id, child_run_id,
    deadline_at, deadline_action, deadline_reason)
  SELECT p.id, p.run_id, p.tool_call_id, p.kind, p.status, p.tool_name, p.args, p.fingerprint, p.approvers, p.policy,
    p.policy_version, p.policy_evaluation, p.quorum,
    p.suspend_payload, p.resume_schema, p.thread_id, p.resource_id, p.requested_by, p.agent_id, p.chain, p.root_run_id, p.root_tool_call_id, p.child_run_id,
    now() + make_interval(secs => (e.row ->> 'deadline_after_ms')::float8 / 1000), p.deadline_action, p.deadline_reason
  FROM jsonb_array_elements(${jsonb(rows)}) WITH ORDINALITY AS e(row, n)
  CROSS JOIN LATERAL jsonb_populate_record(NULL::pending_tool_calls, e.row) AS p
  ORDER BY e.n`;
};

/**
 * `UPDATE runs` closing one open call of `runId` (for a CTE named `closed_run`): the count drops by
 * one, and the closer of the last open call of a suspended run flips it to `running` and
 * `continues` it. The `FOR UPDATE` read takes the row lock first, so `cur` is the newest version and
 * concurrent closers are serialised: exactly one of them sees the count reach 0.
 */
const closeOneCall = (runId: Prisma.Sql) => Prisma.sql`
  cur AS (SELECT id, status, open_calls FROM runs WHERE id = ${runId} FOR UPDATE),
  closed_run AS (
    UPDATE runs r SET
      open_calls = cur.open_calls - 1,
      status = CASE WHEN cur.open_calls = 1 AND cur.status = 'suspended' THEN 'running' ELSE cur.status END,
      updated_at = CASE WHEN cur.open_calls = 1 AND cur.status = 'suspended' THEN now() ELSE r.updated_at END
    FROM cur WHERE r.id = cur.id
    RETURNING ${runColumns('r')}, (cur.open_calls = 1 AND cur.status = 'suspended') AS continues
  )`;

type ContinuationRow = RunRow & { continues: boolean };

/**
 * CTEs `chunks` and `events` of a claim (after `root` and `claimed`): the decision's top-level chunks
 * built from the row as claimed, exactly as `decisionChunks` (lib/agent/pending.ts) builds them —
 * `start` with the top-level run's message, then `tool-call-resumed` with `decision`; a sub-agent's
 * call surfaces under its qualified id, its own id as `leafToolCallId` — and their insert. Built here
 * so that the claim, the decision record and the events to publish commit in one statement.
 */
const decisionEvents = (decision: DecisionSummary) => Prisma.sql`
  chunks AS (
    SELECT 1 AS n, jsonb_build_object('type', 'start', 'runId', root.id, 'from', 'AGENT',
      'payload', jsonb_build_object('messageId', root.message_id, 'threadId', c."threadId")) AS chunk
    FROM claimed c CROSS JOIN root
    UNION ALL
    SELECT 2, jsonb_build_object('type', 'tool-call-resumed', 'runId', root.id, 'from', 'AGENT',
      'payload', jsonb_build_object(
        'toolCallId', CASE WHEN c."runId" = root.id THEN c."toolCallId" ELSE c."rootToolCallId" END,
        'toolName', c."toolName",
        'kind', CASE WHEN c.kind = 'suspension' THEN 'suspension' ELSE 'approval' END,
        'args', c.args,
        'resumeSchema', c."resumeSchema",
        'fingerprint', c.fingerprint,
        'approvers', c.approvers,
        'chain', c.chain,
        'decision', ${jsonb(decision)}
      )
      || CASE WHEN c.kind = 'suspension' THEN jsonb_build_object('suspendPayload', c."suspendPayload") ELSE '{}'::jsonb END
      || CASE WHEN c."policyEvaluation" ? 'why' THEN jsonb_build_object('why', c."policyEvaluation"->'why') ELSE '{}'::jsonb END
      || CASE WHEN c."runId" = root.id THEN '{}'::jsonb ELSE jsonb_build_object('leafToolCallId', c."toolCallId") END)
    FROM claimed c CROSS JOIN root
  ),
  events AS (INSERT INTO run_events (run_id, chunk) SELECT root.id, chunk FROM chunks CROSS JOIN root ORDER BY n)`;

/**
 * The runtime's store on PostgreSQL via Prisma. Each write is one SQL statement (see above);
 * claims are compare-and-set updates so exactly one decision wins across processes. Source: behaviour §5, §10.
 */
export class PrismaAgentStore implements AgentStore {
  /**
   * @param hooks.afterSuspend called once a pause is committed, with the new pending calls (e.g. to
   *   notify reviewers); it must not throw or block (save first, then publish)
   */
  constructor(
    private readonly db: PrismaClient,
    private readonly hooks: { afterSuspend?: (calls: NewPendingCall[]) => void } = {},
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
        INSERT INTO threads (id, resource_id, agent_id, title)
        VALUES (${run.threadId}, ${run.resourceId}, ${run.agentId}, (
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
        ON CONFLICT (id) DO UPDATE SET updated_at = now()
          WHERE threads.resource_id = excluded.resource_id AND threads.deleted_at IS NULL
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
    if (rows.length === 0) throw new Error(`Thread ${run.threadId} belongs to another resource or was deleted`);
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
    const rows = await hotQuery<(Omit<RunSummary, 'status'> & { status: string; calls: PendingRow[] | null })[]>(this.db, Prisma.sql`
      SELECT r.id, r.thread_id AS "threadId", r.resource_id AS "resourceId", r.requested_by AS "requestedBy", r.agent_id AS "agentId",
        r.parent_run_id AS "parentRunId", r.message_id AS "messageId", r.status, r.state IS NOT NULL AS "hasState",
        (SELECT json_agg(p ORDER BY p.seq) FROM (SELECT ${pendingColumns('c')}, c.seq FROM pending_tool_calls c WHERE c.root_run_id = r.id) p) AS calls
      FROM runs r WHERE r.id = ${rootRunId}`);
    const [row] = rows;
    if (!row) return { run: null, calls: [] };
    const { calls, ...run } = row;
    return {
      run: { ...run, status: run.status as RunStatus },
      calls: (calls ?? []).map(pendingFromJson),
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

  async claimPendingCall(input: ClaimInput): Promise<Claimed | null> {
    const { actor } = input;
    const decisionKind = input.status === 'approved' ? 'approval' : input.status === 'declined' ? 'decline' : 'resume';
    const approved = input.status === 'resumed' ? null : input.status === 'approved';
    const editedArgs = input.edited ? jsonb(input.edited.args) : Prisma.sql`NULL::jsonb`;
    const editedFingerprint = input.edited?.fingerprint ?? null;
    const resumeData = input.resumeData === null || input.resumeData === undefined ? Prisma.sql`NULL::jsonb` : jsonb(input.resumeData);
    const byDeadline = input.byDeadline === true;
    const actorRole = Prisma.sql`CASE WHEN ${byDeadline}::boolean THEN 'system' ELSE ${actor.role} END`;
    const dataHash = decisionDataHash({ editedArgs: input.edited?.args ?? null, resumeData: input.resumeData ?? null });
    const rows = await hotQuery<(PendingRow & { topMessageId: string; run: RunRow; events: AgentChunk[] | null })[]>(this.db, Prisma.sql`
      WITH root AS (
        SELECT id, message_id FROM runs
        WHERE id = ${input.rootRunId} AND agent_id = ${input.agentId} AND parent_run_id IS NULL AND state IS NOT NULL
      ),
      -- The rows the id addresses, as callsAddressedBy (lib/agent/call-id.ts): the call with that
      -- qualified id; else, when no row of the run has it, calls with that own id or below that delegation.
      exact AS (
        SELECT p.id FROM pending_tool_calls p JOIN root ON p.root_run_id = root.id
        WHERE p.kind <> 'delegation' AND p.root_tool_call_id = ${input.toolCallId ?? null}
      ),
      candidates AS (
        SELECT p.* FROM pending_tool_calls p JOIN root ON p.root_run_id = root.id
        WHERE p.status = 'pending' AND p.kind <> 'delegation'
          AND (
            ${input.toolCallId ?? null}::text IS NULL
            OR p.root_tool_call_id = ${input.toolCallId ?? null}
            OR (NOT EXISTS (SELECT 1 FROM exact) AND (
              p.tool_call_id = ${input.toolCallId ?? null}
              OR starts_with(p.root_tool_call_id, ${input.toolCallId ?? null}::text || ${CALL_ID_SEPARATOR}::text)
            ))
          )
          AND (${input.pendingCallId ?? null}::text IS NULL OR p.id = ${input.pendingCallId ?? null})
      ),
      target AS (
        SELECT c.* FROM candidates c
        WHERE (SELECT count(*) FROM candidates) = 1
          AND c.kind = ${input.kind}
          AND c.agent_id || ' ' || c.tool_name = ANY(${input.executable}::text[])
          -- Four-eyes, as Agent's authorize(): a reviewer-only call needs a reviewer who did not ask for it.
          -- The deadline's claim is not a person's: it needs a decline deadline that has passed instead.
          -- A withdrawal (a decline by the requester) replaces four-eyes: only the requester may (authorizeWithdrawal).
          AND CASE WHEN ${byDeadline}::boolean
            THEN c.deadline_action = 'decline' AND c.deadline_at <= now()
            WHEN ${input.withdraw === true}::boolean THEN ${actor.id} IN (c.requested_by, c.resource_id)
            ELSE (c.approvers <> 'reviewer' OR (${actor.role} <> 'user' AND ${actor.id} <> c.resource_id AND ${actor.id} <> c.requested_by))
              -- An escalated call is decided by its escalation role only (admins), as authorizeEscalated().
              AND (c.assigned_to_role IS NULL OR c.assigned_to_role = ${actor.role})
          END
          AND (${input.fingerprint ?? null}::text IS NULL OR c.fingerprint = ${input.fingerprint ?? null})
      ),
      claimed AS (
        UPDATE pending_tool_calls p SET
          status = ${input.status}, decided_by = ${actor.id}, decided_at = now(), decision_reason = ${input.reason},
          resume_data = ${resumeData}, args = coalesce(${editedArgs}, p.args), fingerprint = coalesce(${editedFingerprint}::text, p.fingerprint)
        FROM target t
        WHERE p.id = t.id AND p.status = 'pending'
          -- A quorum call is approved only by a vote that made it full (castVote); a decline needs no quorum.
          AND (${input.status}::text <> 'approved' OR p.quorum IS NULL
               OR (cardinality(p.approved_by) >= p.quorum AND ${actor.id}::text = ANY(p.approved_by)))
        RETURNING ${pendingColumns('p')}
      ),
      -- The decision is the next link of the audit hash chain (lib/audit/chain.ts): the head row's
      -- lock, taken only when the claim won, serialises the links; its content is built in SQL.
      stamp AS (SELECT now()::timestamptz(3) AS at),
      link AS (
        SELECT t.id AS target_id, encode(sha256(convert_to(countersign_decision_content(${input.decisionId}, t.id, t.run_id, t.tool_call_id, t.tool_name,
          ${decisionKind}, ${approved}::boolean, ${input.reason}, ${actor.id}, ${actorRole}, t.fingerprint, ${editedFingerprint}::text,
          ${dataHash}, stamp.at), 'UTF8')), 'hex') AS content_hash
        FROM claimed c JOIN target t ON t.id = c.id CROSS JOIN stamp
      ),
      head AS (
        UPDATE audit_chain_head h SET seq = h.seq + 1, prev_hash = h.hash,
          hash = encode(sha256(decode(h.hash, 'hex') || decode(link.content_hash, 'hex')), 'hex')
        FROM link WHERE h.id = 1
        RETURNING h.seq, h.prev_hash, h.hash, link.content_hash
      ),
      decision AS (
        INSERT INTO decisions (id, pending_call_id, run_id, tool_call_id, kind, approved, reason, actor_id, actor_role,
          fingerprint, args, edited_args, edited_fingerprint, resume_data, created_at, tool_name, chain_seq, content_hash, prev_hash, hash)
        SELECT ${input.decisionId}, t.id, t.run_id, t.tool_call_id, ${decisionKind}, ${approved}::boolean, ${input.reason}, ${actor.id}, ${actorRole},
          t.fingerprint, t.args, ${editedArgs}, ${editedFingerprint}::text, ${resumeData}, stamp.at, t.tool_name,
          head.seq, head.content_hash, head.prev_hash, head.hash
        FROM claimed c JOIN target t ON t.id = c.id CROSS JOIN stamp LEFT JOIN head ON true
      ),
      lease AS (
        UPDATE runs SET lease_expires_at = now() + make_interval(secs => ${seconds(input.leaseMs)})
        WHERE id = ${input.rootRunId} AND EXISTS (SELECT 1 FROM claimed)
      ),
      ${input.decision ? decisionEvents(input.decision) : Prisma.sql`events AS (${insertEvents(input.rootRunId, input.topEvents ?? [], Prisma.sql`EXISTS (SELECT 1 FROM claimed)`)})`}
      SELECT c.*, root.message_id AS "topMessageId", (SELECT to_jsonb(x) FROM (SELECT ${runColumns('r')}) x) AS run,
        ${input.decision ? Prisma.sql`(SELECT jsonb_agg(chunk ORDER BY n) FROM chunks)` : Prisma.sql`NULL::jsonb`} AS events
      FROM claimed c CROSS JOIN root JOIN runs r ON r.id = c."runId"`);
    const [row] = rows;
    if (!row) return null;
    const { topMessageId, run, events, ...call } = row;
    return { call: toPendingCall(call), run: toRunRecord(run), topMessageId, ...(events ? { events } : {}) };
  }

  async castVote(input: Parameters<AgentStore['castVote']>[0]) {
    const { actor } = input;
    const rows = await hotQuery<{ approvals: number; quorum: number; approvedBy: string[] }[]>(this.db, Prisma.sql`
      WITH vote AS (
        UPDATE pending_tool_calls p SET approved_by = array_append(p.approved_by, ${actor.id})
        WHERE p.id = ${input.pendingCallId} AND p.status = 'pending' AND p.quorum IS NOT NULL
          AND NOT (${actor.id}::text = ANY(p.approved_by)) AND cardinality(p.approved_by) < p.quorum
          AND (p.assigned_to_role IS NULL OR p.assigned_to_role = ${actor.role})
        RETURNING p.id, p.run_id, p.tool_call_id, p.tool_name, p.fingerprint, p.args, p.quorum, p.approved_by
      ),
      counted AS (SELECT * FROM vote v WHERE cardinality(v.approved_by) < v.quorum),
      -- A vote is a link of the audit hash chain too, built as the claim builds a decision's link.
      stamp AS (SELECT now()::timestamptz(3) AS at),
      link AS (
        SELECT encode(sha256(convert_to(countersign_decision_content(${input.decisionId}, v.id, v.run_id, v.tool_call_id, v.tool_name,
          'vote', true, NULL::text, ${actor.id}, ${actor.role}, v.fingerprint, NULL::text, ${decisionDataHash({ editedArgs: null, resumeData: null })}, stamp.at), 'UTF8')), 'hex') AS content_hash
        FROM counted v CROSS JOIN stamp
      ),
      head AS (
        UPDATE audit_chain_head h SET seq = h.seq + 1, prev_hash = h.hash,
          hash = encode(sha256(decode(h.hash, 'hex') || decode(link.content_hash, 'hex')), 'hex')
        FROM link WHERE h.id = 1
        RETURNING h.seq, h.prev_hash, h.hash, link.content_hash
      ),
      record AS (
        INSERT INTO decisions (id, pending_call_id, run_id, tool_call_id, kind, approved, reason, actor_id, actor_role, fingerprint, args,
          created_at, tool_name, chain_seq, content_hash, prev_hash, hash)
        SELECT ${input.decisionId}, v.id, v.run_id, v.tool_call_id, 'vote', true, NULL, ${actor.id}, ${actor.role}, v.fingerprint, v.args,
          stamp.at, v.tool_name, head.seq, head.content_hash, head.prev_hash, head.hash
        FROM counted v CROSS JOIN stamp LEFT JOIN head ON true
      ),
      events AS (
        INSERT INTO run_events (run_id, chunk)
        SELECT ${input.rootRunId}, jsonb_set(jsonb_set(${jsonb(input.event)}, '{payload,approvals}', to_jsonb(cardinality(v.approved_by))),
          '{payload,approvedBy}', to_jsonb(v.approved_by))
        FROM vote v WHERE cardinality(v.approved_by) < v.quorum
      )
      SELECT cardinality(approved_by) AS approvals, quorum, approved_by AS "approvedBy" FROM vote`);
    const [row] = rows;
    return row ? { approvals: Number(row.approvals), quorum: Number(row.quorum), approvedBy: row.approvedBy } : null;
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
    await hotQuery(this.db, Prisma.sql`UPDATE runs SET lease_expires_at = now() + make_interval(secs => ${seconds(ms)}) WHERE id = ${runId}`);
  }

  async listAbandonedRuns({ before, limit }: { before: Date; limit: number }) {
    return this.db.$queryRaw<{ runId: string; threadId: string; agentId: string }[]>`
      SELECT r.id AS "runId", r.thread_id AS "threadId", r.agent_id AS "agentId"
      FROM runs r
      WHERE r.parent_run_id IS NULL
        AND r.lease_expires_at < ${before}
        AND (
          EXISTS (SELECT 1 FROM runs c WHERE c.status = 'running' AND (c.id = r.id OR c.id IN (
            SELECT p.child_run_id FROM pending_tool_calls p WHERE p.root_run_id = r.id AND p.child_run_id IS NOT NULL)))
          OR EXISTS (SELECT 1 FROM pending_tool_calls p WHERE p.root_run_id = r.id AND p.status IN ('approved', 'resumed'))
        )
      ORDER BY r.lease_expires_at
      LIMIT ${limit}`;
  }

  async takeOverRun({ runId, leaseMs }: { runId: string; leaseMs: number }) {
    // The unfinished step's events: from the log's last `step-start` on, when no `step-finish`
    // follows it (a model step writes nothing durable before its end).
    const [taken] = await this.db.$queryRaw<{ id: string }[]>`
      WITH taken AS (
        UPDATE runs r SET lease_expires_at = now() + make_interval(secs => ${seconds(leaseMs)}), updated_at = now()
        WHERE r.id = ${runId} AND r.parent_run_id IS NULL AND r.status = 'running' AND r.state IS NOT NULL
          AND r.lease_expires_at <= now()
          AND coalesce(jsonb_array_length(r.state -> 'startedCalls'), 0) = 0
          AND NOT EXISTS (
            SELECT 1 FROM pending_tool_calls p WHERE p.root_run_id = r.id AND p.status IN ('approved', 'resumed', 'waiting'))
        RETURNING r.id
      ),
      unfinished AS (
        SELECT s.id FROM run_events s
        WHERE s.run_id = ${runId} AND s.chunk ->> 'type' = 'step-start'
          AND NOT EXISTS (SELECT 1 FROM run_events f WHERE f.run_id = s.run_id AND f.id > s.id AND f.chunk ->> 'type' = 'step-finish')
        ORDER BY s.id DESC LIMIT 1
      ),
      dropped AS (
        DELETE FROM run_events e USING taken, unfinished WHERE e.run_id = taken.id AND e.id >= unfinished.id
      )
      SELECT id FROM taken`;
    if (!taken) return null;
    return toRunRecord(await this.db.run.findUniqueOrThrow({ where: { id: runId } }));
  }

  async markRunInterrupted({
    rootRunId,
    error,
    events,
    messages,
  }: {
    rootRunId: string;
    error: string;
    events: (unknownCalls: PendingCall[]) => AgentChunk[];
    messages: (input: { state: RunState; rows: PendingCall[] }) => ModelMessage[];
  }) {
    // The events name the calls whose outcome becomes unknown, so those are read first; the write
    // applies only if the claimed set is still the same (else read again), so no transaction spans
    // the two.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const claimed = (await this.db.pendingToolCall.findMany({ where: { rootRunId, status: { in: ['approved', 'resumed'] } }, orderBy: { id: 'asc' } })).map(
        (row) => toPendingCall({ ...row, status: 'unknown' }),
      );
      const ids = claimed.map((call) => call.id);
      // What the run did stays in the thread's memory, with a result for every call (behaviour §5):
      // computed from its last state and its own rows as this statement leaves them.
      const top = await this.db.run.findUnique({ where: { id: rootRunId }, select: { state: true, threadId: true } });
      const marked: Record<string, string> = { approved: 'unknown', resumed: 'unknown', pending: 'superseded', waiting: 'superseded' };
      const own = (await this.db.pendingToolCall.findMany({ where: { runId: rootRunId }, orderBy: { createdAt: 'asc' } })).map((row) =>
        toPendingCall({ ...row, status: marked[row.status] ?? row.status }),
      );
      const state = (top?.state as unknown as RunState | null) ?? null;
      const remembered = state ? messages({ state, rows: own }).map((message) => ({ id: randomUUID(), role: message.role, content: message.content })) : [];
      // Lock order as the claims': the tree's pending rows first, then the top-level run, whose lease
      // a live process (or a new claim) renews; a live lease makes this a no-op.
      const [result] = await this.db.$queryRaw<{ expired: boolean; applied: boolean }[]>`
        WITH calls AS (SELECT id, status FROM pending_tool_calls WHERE root_run_id = ${rootRunId} ORDER BY id FOR UPDATE),
        top AS (
          SELECT id FROM runs
          WHERE id = ${rootRunId} AND (lease_expires_at IS NULL OR lease_expires_at <= now()) AND (SELECT count(*) FROM calls) >= 0
          FOR UPDATE
        ),
        ok AS (
          SELECT id FROM top
          WHERE (SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM calls WHERE status IN ('approved', 'resumed')) = ${ids}::text[]
        ),
        unknown AS (
          UPDATE pending_tool_calls SET status = 'unknown'
          WHERE root_run_id = ${rootRunId} AND status IN ('approved', 'resumed') AND EXISTS (SELECT 1 FROM ok)
        ),
        -- Questions and approvals still open in the tree can no longer continue anything.
        superseded AS (
          UPDATE pending_tool_calls SET status = 'superseded'
          WHERE root_run_id = ${rootRunId} AND status IN ('pending', 'waiting') AND EXISTS (SELECT 1 FROM ok)
        ),
        failed AS (
          UPDATE runs SET status = 'failed', error = ${error}, state = NULL, updated_at = now()
          WHERE (id = ${rootRunId} OR id IN (SELECT child_run_id FROM pending_tool_calls WHERE root_run_id = ${rootRunId} AND child_run_id IS NOT NULL))
            AND status IN ('running', 'suspended') AND EXISTS (SELECT 1 FROM ok)
        ),
        events AS (${insertEvents(rootRunId, events(claimed), Prisma.sql`EXISTS (SELECT 1 FROM ok)`)}),
        memory AS (
          INSERT INTO messages (id, thread_id, role, content, run_id)
          SELECT m.value ->> 'id', ${top?.threadId ?? ''}, m.value ->> 'role', m.value -> 'content', ${rootRunId}
          FROM jsonb_array_elements(${jsonb(remembered)}) WITH ORDINALITY AS m(value, ord)
          WHERE EXISTS (SELECT 1 FROM ok)
          ORDER BY m.ord
        )
        SELECT EXISTS (SELECT 1 FROM top) AS expired, EXISTS (SELECT 1 FROM ok) AS applied`;
      if (!result.expired) return [];
      if (result.applied) return claimed;
    }
    throw new Error(`Run ${rootRunId} kept changing while it was being marked interrupted`);
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

/** The run a close statement handed over to its caller, if any. */
function continuation(rows: ContinuationRow[]): RunRecord | null {
  const [row] = rows;
  return row?.continues ? toRunRecord(row) : null;
}
