import { chainKeyPads } from '@/lib/audit/chain-key';
import type { AgentChunk, DecisionSummary } from '@/lib/agent/chunks';
import type { CallOutcome, NewPendingCall, PendingCall, RunRecord, RunState, RunStatus } from '@/lib/agent/store';
import type { PolicyEvaluation } from '@/lib/agent/data-policy';
import type { Approvers } from '@/lib/agent/tool';
import { Prisma } from '@/lib/generated/prisma/client';

/**
 * The store's rows and statement parts: how a `pending_tool_calls` or `runs` row becomes the
 * runtime's PendingCall or RunRecord, the column lists raw statements select under Prisma's names,
 * and the CTE fragments the hot statements of PrismaAgentStore (./prisma-store.ts) are built from.
 * No database access here.
 */

/** A pending_tool_calls row as Prisma reads it (and as `pendingColumns` names raw columns). */
export type PendingRow = Prisma.PendingToolCallGetPayload<object>;
/** A runs row as Prisma reads it. */
export type RunRow = Prisma.RunGetPayload<object>;

/** A JSON value for a Prisma query-builder write (undefined → null). */
export const json = (value: unknown) => (value ?? null) as Prisma.InputJsonValue;
/** A jsonb parameter of a raw statement (JSON text, cast by PostgreSQL). */
export const jsonb = (value: unknown) => Prisma.sql`${JSON.stringify(value ?? null)}::jsonb`;
/** Milliseconds as the seconds `make_interval(secs => …)` takes. */
export const seconds = (ms: number) => ms / 1000;

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

export function toRunRecord(
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
export const pendingFromJson = (call: PendingRow) =>
  toPendingCall({
    ...call,
    createdAt: new Date(call.createdAt),
    decidedAt: call.decidedAt && new Date(call.decidedAt),
    deadlineAt: call.deadlineAt && new Date(call.deadlineAt),
    escalatedAt: call.escalatedAt && new Date(call.escalatedAt),
  });

/** A run's columns under the names Prisma gives them, for raw statements. */
export const runColumns = (alias: string) =>
  Prisma.raw(
    ['id', 'thread_id AS "threadId"', 'resource_id AS "resourceId"', 'requested_by AS "requestedBy"', 'agent_id AS "agentId"', 'parent_run_id AS "parentRunId"', 'message_id AS "messageId"', 'status', 'state']
      .map((column) => `${alias}.${column}`)
      .join(', '),
  );

/** `INSERT … SELECT` of chunks into a run's log, in order (for a CTE). */
export const insertEvents = (runId: string, chunks: AgentChunk[], onlyIf: Prisma.Sql = Prisma.sql`TRUE`) => Prisma.sql`
  INSERT INTO run_events (run_id, chunk)
  SELECT ${runId}, e.chunk FROM jsonb_array_elements(${jsonb(chunks)}) WITH ORDINALITY AS e(chunk, n)
  WHERE ${onlyIf}
  ORDER BY e.n`;

/** `INSERT … SELECT` of new pending rows (for a CTE). */
export const insertPendingCalls = (calls: NewPendingCall[], status: 'pending' | 'waiting') => {
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
export const closeOneCall = (runId: Prisma.Sql) => Prisma.sql`
  cur AS (SELECT id, status, open_calls FROM runs WHERE id = ${runId} FOR UPDATE),
  closed_run AS (
    UPDATE runs r SET
      open_calls = cur.open_calls - 1,
      status = CASE WHEN cur.open_calls = 1 AND cur.status = 'suspended' THEN 'running' ELSE cur.status END,
      updated_at = CASE WHEN cur.open_calls = 1 AND cur.status = 'suspended' THEN now() ELSE r.updated_at END
    FROM cur WHERE r.id = cur.id
    RETURNING ${runColumns('r')}, (cur.open_calls = 1 AND cur.status = 'suspended') AS continues
  )`;

export type ContinuationRow = RunRow & { continues: boolean };

/**
 * CTEs `chunks` and `events` of a claim (after `root` and `claimed`): the decision's top-level chunks
 * built from the row as claimed, exactly as `decisionChunks` (lib/agent/pending.ts) builds them —
 * `start` with the top-level run's message, then `tool-call-resumed` with `decision`; a sub-agent's
 * call surfaces under its qualified id, its own id as `leafToolCallId` — and their insert. Built here
 * so that the claim, the decision record and the events to publish commit in one statement.
 */
export const decisionEvents = (decision: DecisionSummary) => Prisma.sql`
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
      || CASE WHEN c.quorum IS NOT NULL AND c.quorum > 0 THEN jsonb_build_object('quorum', c.quorum, 'approvedBy', to_jsonb(c."approvedBy")) ELSE '{}'::jsonb END
      || CASE WHEN c."runId" = root.id THEN '{}'::jsonb ELSE jsonb_build_object('leafToolCallId', c."toolCallId") END)
    FROM claimed c CROSS JOIN root
  ),
  events AS (INSERT INTO run_events (run_id, chunk) SELECT root.id, chunk FROM chunks CROSS JOIN root ORDER BY n)`;

/**
 * The CTE `head`: appends the content hash that the statement's CTE `link` computed to the audit
 * hash chain (lib/audit/chain.ts) by updating the one-row `audit_chain_head`, whose row lock orders
 * the links. The link is HMAC-SHA256(AUDIT_CHAIN_KEY, previous ‖ content), computed here from the
 * key's HMAC blocks (chainKeyPads: statement parameters, never stored). Returns the new link (`seq`,
 * `prev_hash`, `hash`, `content_hash`), or no row when `link` has none (nothing was claimed).
 */
export function nextChainLink(): Prisma.Sql {
  return Prisma.sql`head AS (
    UPDATE audit_chain_head h SET seq = h.seq + 1, prev_hash = h.hash,
      hash = ${keyedLinkSql(Prisma.sql`h.hash`, Prisma.sql`link.content_hash`)}
    FROM link WHERE h.id = 1
    RETURNING h.seq, h.prev_hash, h.hash, link.content_hash
  )`;
}

/**
 * SQL for HMAC-SHA256(AUDIT_CHAIN_KEY, decode(prev) ‖ decode(content)) as hex (RFC 2104 with the
 * key's blocks from chainKeyPads), equal to lib/audit/chain.ts's linkHash.
 */
export function keyedLinkSql(prevHex: Prisma.Sql, contentHex: Prisma.Sql): Prisma.Sql {
  const { ipad, opad } = chainKeyPads();
  return Prisma.sql`encode(sha256(decode(${opad}, 'hex') || sha256(decode(${ipad}, 'hex') || decode(${prevHex}, 'hex') || decode(${contentHex}, 'hex'))), 'hex')`;
}

/** The run a close statement handed over to its caller, if any. */
export function continuation(rows: ContinuationRow[]): RunRecord | null {
  const [row] = rows;
  return row?.continues ? toRunRecord(row) : null;
}
