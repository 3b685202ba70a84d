import { randomUUID } from 'node:crypto';
import { ESCALATION_ROLE, SYSTEM_ACTOR_ID } from '@/lib/agent/deadline';
import { decisionDataHash } from '@/lib/audit/chain';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { addJobSql, JOB_KINDS } from '@/lib/jobs/queue';
import { nextChainLink } from './rows';

/** The notification channel of reviewer email (lib/notify/reviewer-jobs.ts, which registers its handler). */
const REVIEWER_EMAIL_CHANNEL = 'reviewer-email';

/** A pending call as the deadline job reads it. */
export interface DeadlineTarget {
  id: string;
  status: string;
  rootRunId: string;
  /** The top-level run's agent: the one whose `expireDeadline` declines the call. */
  rootAgentId: string;
  deadlineAt: Date | null;
  deadlineAction: 'decline' | 'escalate' | null;
  deadlineReason: string | null;
  escalatedAt: Date | null;
  createdAt: Date;
}

/** One read: the call and its top-level run's agent; null when the row is gone. */
export async function loadDeadlineTarget(db: PrismaClient, pendingCallId: string): Promise<DeadlineTarget | null> {
  const [row] = await db.$queryRaw<DeadlineTarget[]>`
    SELECT p.id, p.status, p.root_run_id AS "rootRunId", r.agent_id AS "rootAgentId", p.deadline_at AS "deadlineAt",
      p.deadline_action AS "deadlineAction", p.deadline_reason AS "deadlineReason", p.escalated_at AS "escalatedAt", p.created_at AS "createdAt"
    FROM pending_tool_calls p JOIN runs r ON r.id = p.root_run_id
    WHERE p.id = ${pendingCallId}`;
  return row ?? null;
}

/**
 * Escalates a call at its deadline, once, in one statement: compare-and-set on the row (still
 * `pending`, action `escalate`, not escalated, the deadline read is the row's and has passed) that
 * assigns it to admins — the role, and nobody in person any more (a reviewer who had claimed it can
 * no longer decide it: only admins may, see the claim) — and extends its deadline once by the span
 * it already waited (then it is declined), plus an `escalation` record by actor `system` in the
 * audit and the admins' "Overdue" email as a queued `reviewer-email` job (committed with it, so it
 * is sent even when this process dies next). The row's update fires the live update (NOTIFY) and
 * schedules the new deadline's job (trigger).
 *
 * @param input.deadlineAt the deadline as read (the compare-and-set's expected value)
 * @param input.reason the audit reason
 * @returns true when this call escalated it; false when it was decided, escalated or moved meanwhile
 */
export async function escalatePendingCall(db: PrismaClient, input: { pendingCallId: string; deadlineAt: Date; reason: string }): Promise<boolean> {
  const decisionId = randomUUID();
  const dataHash = decisionDataHash({ editedArgs: null, resumeData: null });
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH escalated AS (
      UPDATE pending_tool_calls p SET
        escalated_at = now(), assigned_to_role = ${ESCALATION_ROLE}, assigned_to = NULL, assigned_at = NULL,
        deadline_at = now() + (p.deadline_at - p.created_at), deadline_action = 'decline'
      WHERE p.id = ${input.pendingCallId} AND p.status = 'pending' AND p.deadline_action = 'escalate' AND p.escalated_at IS NULL
        AND p.deadline_at = ${input.deadlineAt.toISOString()}::timestamptz AND p.deadline_at <= now()
      RETURNING p.id, p.run_id, p.tool_call_id, p.fingerprint, p.args, p.tool_name
    ),
    -- The escalation record is the next link of the audit hash chain, as a decision is (lib/audit/chain.ts).
    stamp AS (SELECT now()::timestamptz(3) AS at),
    link AS (
      SELECT encode(sha256(convert_to(countersign_decision_content(${decisionId}, e.id, e.run_id, e.tool_call_id, e.tool_name, 'escalation', NULL,
        ${input.reason}, ${SYSTEM_ACTOR_ID}, 'system', e.fingerprint, NULL, ${dataHash}, stamp.at), 'UTF8')), 'hex') AS content_hash
      FROM escalated e CROSS JOIN stamp
    ),
    ${nextChainLink()},
    decision AS (
      INSERT INTO decisions (id, pending_call_id, run_id, tool_call_id, kind, approved, reason, actor_id, actor_role, fingerprint, args,
        created_at, tool_name, chain_seq, content_hash, prev_hash, hash)
      SELECT ${decisionId}, e.id, e.run_id, e.tool_call_id, 'escalation', NULL, ${input.reason}, ${SYSTEM_ACTOR_ID}, 'system', e.fingerprint, e.args,
        stamp.at, e.tool_name, head.seq, head.content_hash, head.prev_hash, head.hash
      FROM escalated e CROSS JOIN stamp LEFT JOIN head ON true
    ),
    mail AS (
      SELECT ${addJobSql(
        JOB_KINDS.notification,
        { channel: REVIEWER_EMAIL_CHANNEL, payload: { kind: 'overdue', pendingCallId: input.pendingCallId } },
        { key: `${REVIEWER_EMAIL_CHANNEL}:overdue:${input.pendingCallId}`, maxAttempts: 10 },
      )} FROM escalated
    )
    -- Reading the job's CTE in the output makes it run (a SELECT in WITH runs only when read; a join
    -- whose columns go unused may be removed by the planner).
    SELECT e.id, (SELECT count(*)::int FROM mail) AS jobs FROM escalated e`;
  return rows.length === 1;
}

/**
 * Calls whose deadline passed more than `graceMs` ago and still wait on a run that can continue:
 * their job was lost or is late (its worker died holding it). The sweep acts on them as a backstop.
 */
export async function listOverdueDeadlines(db: PrismaClient, input: { graceMs: number; limit: number }): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT p.id FROM pending_tool_calls p JOIN runs r ON r.id = p.root_run_id AND r.state IS NOT NULL
    WHERE p.status = 'pending' AND p.deadline_at IS NOT NULL AND p.deadline_at < now() - make_interval(secs => ${input.graceMs / 1000})
    ORDER BY p.deadline_at
    LIMIT ${input.limit}`;
  return rows.map((row) => row.id);
}
