import type { AgentChunk } from '@/lib/agent/chunks';
import { voteChunk } from '@/lib/agent/quorum';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { insertEvents, pendingColumns, toPendingCall, type PendingRow } from './rows';

/**
 * Quorum votes that stop counting (issue #30 item 8): a reviewer's vote counts towards a quorum only
 * while they can still decide the call. When an admin deactivates them, makes them an end user, or
 * takes the admin role from someone whose vote was on a call escalated to admins, their votes leave
 * the `approved_by` of every call still waiting (the `vote` decision records stay in the audit), so
 * the call needs another reviewer's vote; the call's card gets its new count, and the inbox says
 * whose vote no longer counts and why (`withdrawnVotesOf`).
 */

/** Why a vote no longer counts, as the inbox says it. */
export type WithdrawnReason = 'deactivated' | 'no longer a reviewer' | 'no longer an admin' | 'withdrawn';

/**
 * Takes `userId`'s votes off the waiting quorum calls they can no longer decide. Run inside the
 * admin's change (lib/admin/users.ts), after its UPDATE of `users`, so a claim that would fill the
 * quorum with such a vote either committed before (the call was approved while the vote counted)
 * or sees the shorter list and only counts as one more vote.
 * @param db the admin change's transaction
 * @returns how many calls lost a vote
 */
export async function withdrawUndecidableVotes(db: Pick<PrismaClient, '$queryRaw'>, userId: string): Promise<number> {
  const rows = await db.$queryRaw<PendingRow[]>`
    WITH person AS (
      SELECT id, role, banned IS TRUE AS banned FROM users WHERE id = ${userId}
    ),
    affected AS (
      SELECT p.id FROM pending_tool_calls p, person u
      WHERE p.status = 'pending' AND p.quorum IS NOT NULL AND u.id = ANY(p.approved_by)
        AND (u.banned OR u.role NOT IN ('reviewer', 'admin') OR (p.assigned_to_role = 'admin' AND u.role <> 'admin'))
      FOR UPDATE OF p
    ),
    updated AS (
      UPDATE pending_tool_calls p SET approved_by = array_remove(p.approved_by, ${userId}::text)
      FROM affected a WHERE p.id = a.id AND p.status = 'pending'
      RETURNING p.*
    ),
    notified AS (
      SELECT pg_notify('countersign_pending', json_build_object('id', id, 'change', 'votes')::text) FROM updated
    )
    SELECT ${pendingColumns('u')}, (SELECT count(*) FROM notified) AS notified FROM updated u`;
  for (const row of rows) {
    const call = toPendingCall(row);
    // The card of the call, with the count it has now (as a vote's own event carries it).
    const chunk: AgentChunk = voteChunk(call, call.approvedBy);
    await db.$queryRaw`WITH e AS (${insertEvents(call.rootRunId, [chunk])} RETURNING 1) SELECT count(*)::int AS n FROM e`;
  }
  return rows.length;
}

/**
 * The votes recorded on quorum calls (`vote` decisions) whose voter is no longer in the call's
 * `approved_by`, with the reason from the voter's account as it is now. One statement, and none when
 * `calls` holds no quorum call (most inbox pages), so the page query's plan stays the keyset scan.
 *
 * @param calls pending calls as read (the id and `quorum` of each)
 * @returns per call id with withdrawn votes, `[{ userId, reason }]` sorted by voter id
 */
export async function withdrawnVotesOf(
  calls: readonly { id: string; quorum?: number | null }[],
  db: PrismaClient,
): Promise<Map<string, { userId: string; reason: WithdrawnReason }[]>> {
  const quorumCalls = calls.filter((call) => (call.quorum ?? 0) > 0);
  const votes = new Map<string, { userId: string; reason: WithdrawnReason }[]>();
  if (quorumCalls.length === 0) return votes;
  const rows = await db.$queryRaw<{ callId: string; userId: string; reason: WithdrawnReason }[]>`
    SELECT DISTINCT d.pending_call_id AS "callId", d.actor_id AS "userId",
      CASE WHEN u.banned IS TRUE THEN 'deactivated' WHEN u.role NOT IN ('reviewer', 'admin') THEN 'no longer a reviewer'
           WHEN p.assigned_to_role = 'admin' AND u.role <> 'admin' THEN 'no longer an admin' ELSE 'withdrawn' END AS reason
    FROM decisions d JOIN pending_tool_calls p ON p.id = d.pending_call_id LEFT JOIN users u ON u.id = d.actor_id
    WHERE d.pending_call_id = ANY(${quorumCalls.map((call) => call.id)}::text[]) AND d.kind = 'vote' AND NOT (d.actor_id = ANY(p.approved_by))`;
  for (const row of rows) votes.set(row.callId, [...(votes.get(row.callId) ?? []), { userId: row.userId, reason: row.reason }]);
  for (const list of votes.values()) list.sort((a, b) => a.userId.localeCompare(b.userId));
  return votes;
}
