import type { AgentChunk } from '@/lib/agent/chunks';
import { CALL_ID_SEPARATOR } from '@/lib/agent/call-id';
import type { AgentStore, ClaimInput, Claimed } from '@/lib/agent/store';
import { decisionDataHash } from '@/lib/audit/chain';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { hotQuery } from './hot';
import { decisionEvents, insertEvents, jsonb, nextChainLink, pendingColumns, runColumns, seconds, toPendingCall, toRunRecord, type PendingRow, type RunRow } from './rows';

/** The two statements a person's decision is: the claim (with its audit-chain link) and a quorum vote. */

/**
 * The decision statement (AgentStore.claimPendingCall): one statement that resolves the call the id
 * addresses, compare-and-sets it from `pending` (status, fingerprint, eligible approver: four-eyes,
 * escalation, the deadline's claim, a withdrawal), inserts the decision as the next audit-chain
 * link, renews the run's lease and appends the run's events, then returns the call, the run and
 * the events. It claims nothing (null) when another decision won or a rule refused; the runtime's
 * diagnostic reads then say which (lib/agent/decisions.ts).
 * @returns the claimed call, its run, the top-level message id and the appended events, or null
 */
export async function claimPendingCall(db: PrismaClient, input: ClaimInput): Promise<Claimed | null> {
  const { actor } = input;
  const decisionKind = input.status === 'approved' ? 'approval' : input.status === 'declined' ? 'decline' : 'resume';
  const approved = input.status === 'resumed' ? null : input.status === 'approved';
  const editedArgs = input.edited ? jsonb(input.edited.args) : Prisma.sql`NULL::jsonb`;
  const editedFingerprint = input.edited?.fingerprint ?? null;
  const resumeData = input.resumeData === null || input.resumeData === undefined ? Prisma.sql`NULL::jsonb` : jsonb(input.resumeData);
  const byDeadline = input.byDeadline === true;
  const actorRole = Prisma.sql`CASE WHEN ${byDeadline}::boolean THEN 'system' ELSE ${actor.role} END`;
  const dataHash = decisionDataHash({ editedArgs: input.edited?.args ?? null, resumeData: input.resumeData ?? null });
  const rows = await hotQuery<(PendingRow & { topMessageId: string; run: RunRow; events: AgentChunk[] | null })[]>(db, Prisma.sql`
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
        resume_data = ${resumeData}, args = coalesce(${editedArgs}, p.args), fingerprint = coalesce(${editedFingerprint}::text, p.fingerprint),
        -- The vote that fills a quorum is added here, with the approval, so it is recorded if and only if the approval is.
        approved_by = CASE WHEN ${input.status}::text = 'approved' AND p.quorum IS NOT NULL AND NOT (${actor.id}::text = ANY(p.approved_by))
          THEN array_append(p.approved_by, ${actor.id}::text) ELSE p.approved_by END
      FROM target t
      WHERE p.id = t.id AND p.status = 'pending'
        -- A quorum call is approved only by the vote that fills it (one short of the quorum before it;
        -- castVote records the others), or by one of its voters once it is full (a call filled by an
        -- earlier version of this statement); a decline needs no quorum.
        AND (${input.status}::text <> 'approved' OR p.quorum IS NULL
             OR (cardinality(p.approved_by) = p.quorum - 1 AND NOT (${actor.id}::text = ANY(p.approved_by)))
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
    ${nextChainLink()},
    decision AS (
      INSERT INTO decisions (id, pending_call_id, run_id, tool_call_id, kind, approved, reason, actor_id, actor_role,
        fingerprint, args, edited_args, edited_fingerprint, resume_data, created_at, tool_name, chain_seq, content_hash, prev_hash, hash)
      SELECT ${input.decisionId}, t.id, t.run_id, t.tool_call_id, ${decisionKind}, ${approved}::boolean, ${input.reason}, ${actor.id}, ${actorRole},
        t.fingerprint, t.args, ${editedArgs}, ${editedFingerprint}::text, ${resumeData}, stamp.at, t.tool_name,
        head.seq, head.content_hash, head.prev_hash, head.hash
      FROM claimed c JOIN target t ON t.id = c.id CROSS JOIN stamp LEFT JOIN head ON true
    ),
    ${input.edited ? Prisma.sql`-- The data policies' history counts what runs: the edited args replace the call's record (policies/store.ts).
    ledger AS (
      UPDATE policy_call_ledger l SET args = ${editedArgs}
      FROM claimed c JOIN target t ON t.id = c.id
      WHERE l.run_id = t.run_id AND l.tool_call_id = t.tool_call_id
    ),` : Prisma.empty}
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

/**
 * A reviewer's vote on a quorum call (AgentStore.castVote) that leaves it short of the quorum: adds
 * the voter once, recorded as a `vote` decision (an audit-chain link) with its run event. The vote
 * that would fill the quorum is not taken here: it is the approval itself (claimPendingCall adds it
 * in the statement that approves), so a decline that wins the call in between leaves no vote behind.
 * @returns the approvals so far, the quorum and who approved, or null when the vote did not count
 *   (not pending, already voted, it would fill the quorum, or not the escalation role)
 */
export async function castVote(db: PrismaClient, input: Parameters<AgentStore['castVote']>[0]): Promise<{ approvals: number; quorum: number; approvedBy: string[] } | null> {
  const { actor } = input;
  const rows = await hotQuery<{ approvals: number; quorum: number; approvedBy: string[] }[]>(db, Prisma.sql`
    WITH vote AS (
      UPDATE pending_tool_calls p SET approved_by = array_append(p.approved_by, ${actor.id})
      WHERE p.id = ${input.pendingCallId} AND p.status = 'pending' AND p.quorum IS NOT NULL
        AND NOT (${actor.id}::text = ANY(p.approved_by)) AND cardinality(p.approved_by) < p.quorum - 1
        AND (p.assigned_to_role IS NULL OR p.assigned_to_role = ${actor.role})
      RETURNING p.id, p.run_id, p.tool_call_id, p.tool_name, p.fingerprint, p.args, p.quorum, p.approved_by
    ),
    -- A vote is a link of the audit hash chain too, built as the claim builds a decision's link.
    stamp AS (SELECT now()::timestamptz(3) AS at),
    link AS (
      SELECT encode(sha256(convert_to(countersign_decision_content(${input.decisionId}, v.id, v.run_id, v.tool_call_id, v.tool_name,
        'vote', true, NULL::text, ${actor.id}, ${actor.role}, v.fingerprint, NULL::text, ${decisionDataHash({ editedArgs: null, resumeData: null })}, stamp.at), 'UTF8')), 'hex') AS content_hash
      FROM vote v CROSS JOIN stamp
    ),
    ${nextChainLink()},
    record AS (
      INSERT INTO decisions (id, pending_call_id, run_id, tool_call_id, kind, approved, reason, actor_id, actor_role, fingerprint, args,
        created_at, tool_name, chain_seq, content_hash, prev_hash, hash)
      SELECT ${input.decisionId}, v.id, v.run_id, v.tool_call_id, 'vote', true, NULL, ${actor.id}, ${actor.role}, v.fingerprint, v.args,
        stamp.at, v.tool_name, head.seq, head.content_hash, head.prev_hash, head.hash
      FROM vote v CROSS JOIN stamp LEFT JOIN head ON true
    ),
    events AS (
      INSERT INTO run_events (run_id, chunk)
      SELECT ${input.rootRunId}, jsonb_set(jsonb_set(${jsonb(input.event)}, '{payload,approvals}', to_jsonb(cardinality(v.approved_by))),
        '{payload,approvedBy}', to_jsonb(v.approved_by))
      FROM vote v
    )
    SELECT cardinality(approved_by) AS approvals, quorum, approved_by AS "approvedBy" FROM vote`);
  const [row] = rows;
  return row ? { approvals: Number(row.approvals), quorum: Number(row.quorum), approvedBy: row.approvedBy } : null;
}
