import 'server-only';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Actor } from '@/lib/agent/tool';
import { ApiError } from '@/lib/http/errors';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';

/** POST /api/inbox/calls/{id}/assignment. */
export const assignmentSchema = z.object({
  /** Who works on the call: a reviewer's or admin's user id (your own to claim it), or null to release it. */
  assignee: z.string().min(1).max(100).nullable(),
  /**
   * The assignee the sender saw (null: unassigned). When given and the call's assignee is another
   * by now, nothing changes and the answer is 409 ASSIGNMENT_CHANGED — so two reviewers claiming at
   * once cannot both believe they have it.
   */
  expected: z.string().min(1).max(100).nullable().optional(),
});
export type AssignmentInput = z.infer<typeof assignmentSchema>;

/**
 * Claims, releases or hands over one pending call of the inbox, in one statement: a compare-and-set
 * on the still-pending row (and on `expected`, when sent), an append-only `call_activity` record
 * (`assigned` or `released`, kept for the audit), and a NOTIFY on `countersign_pending` so every
 * inbox updates live. Asking for what already is (a double click, releasing a call nobody holds)
 * answers the same and records nothing. Reviewers and admins only (the route checks the role).
 *
 * The assignee's account is checked, and locked against a concurrent deactivation or role change,
 * inside the statement: an admin who deactivates someone releases their calls in the same
 * transaction (`releaseUndecidableAssignments`), so no call is left assigned to a person who cannot
 * decide it.
 *
 * @returns the call's assignee afterwards
 * @throws ApiError 404 NOT_FOUND (no such call), 409 ALREADY_DECIDED (no longer pending; details:
 *   decidedBy), 409 ASSIGNMENT_CHANGED (details: assignedTo), 422 INVALID_ASSIGNEE (not a reviewer or
 *   admin, a deactivated account, the person who asked for a reviewer-only call, or not an admin for
 *   a call escalated to admins: they could not decide it)
 */
export async function assignCall(input: AssignmentInput & { pendingCallId: string; actor: Actor }): Promise<{ assignedTo: string | null }> {
  const db = prisma();
  const row = await db.pendingToolCall.findUnique({
    where: { id: input.pendingCallId },
    select: { id: true, kind: true, status: true, approvers: true, requestedBy: true, resourceId: true, assignedTo: true, decidedBy: true, assignedToRole: true },
  });
  if (!row || (row.kind !== 'approval' && row.kind !== 'suspension')) throw new ApiError(404, 'NOT_FOUND', 'No such call.');
  if (row.status !== 'pending') {
    throw new ApiError(409, 'ALREADY_DECIDED', 'This call was already decided.', { decidedBy: row.decidedBy, status: row.status });
  }
  if (input.assignee !== null) {
    const person = await db.user.findUnique({ where: { id: input.assignee }, select: { role: true, banned: true } });
    if (!person || (person.role !== 'reviewer' && person.role !== 'admin')) {
      throw new ApiError(422, 'INVALID_ASSIGNEE', 'Calls can only be assigned to a reviewer or an admin.');
    }
    if (person.banned) throw new ApiError(422, 'INVALID_ASSIGNEE', 'This account is deactivated; assign the call to someone who can decide it.');
    if (row.assignedToRole && person.role !== row.assignedToRole) {
      throw new ApiError(422, 'INVALID_ASSIGNEE', 'This call was escalated to admins; only an admin can take it.');
    }
    if (row.approvers === 'reviewer' && (input.assignee === row.requestedBy || input.assignee === row.resourceId)) {
      throw new ApiError(422, 'INVALID_ASSIGNEE', 'This call needs a reviewer other than the person who asked for it.');
    }
  }
  const checkExpected = input.expected !== undefined;
  const kind = input.assignee === null ? 'released' : 'assigned';
  const [result] = await db.$queryRaw<{ updated: number; notified: number; eligible: boolean; assignedTo: string | null; status: string; decidedBy: string | null }[]>`
    WITH assignee AS (
      -- FOR SHARE: a deactivation or role change of the assignee waits for this statement, or this
      -- statement for it (and then sees the account as it is afterwards).
      SELECT id FROM users WHERE id = ${input.assignee} AND banned IS NOT TRUE AND role IN ('reviewer', 'admin') FOR SHARE
    ),
    updated AS (
      UPDATE pending_tool_calls SET assigned_to = ${input.assignee}, assigned_at = CASE WHEN ${input.assignee}::text IS NULL THEN NULL ELSE now() END
      WHERE id = ${row.id} AND status = 'pending' AND assigned_to IS DISTINCT FROM ${input.assignee}::text
        AND (${input.assignee}::text IS NULL OR EXISTS (SELECT 1 FROM assignee))
        AND (NOT ${checkExpected}::boolean OR assigned_to IS NOT DISTINCT FROM ${input.expected ?? null}::text)
      RETURNING id
    ),
    activity AS (
      INSERT INTO call_activity (id, pending_call_id, kind, actor_id, actor_role, assignee)
      SELECT ${randomUUID()}, id, ${kind}, ${input.actor.id}, ${input.actor.role}, ${input.assignee} FROM updated
    ),
    notified AS (
      SELECT pg_notify('countersign_pending', json_build_object('id', id, 'change', 'assignment')::text) FROM updated
    )
    SELECT (SELECT count(*)::int FROM updated) AS updated, (SELECT count(*)::int FROM notified) AS notified,
      (${input.assignee}::text IS NULL OR EXISTS (SELECT 1 FROM assignee)) AS eligible, p.assigned_to AS "assignedTo", p.status, p.decided_by AS "decidedBy"
    FROM pending_tool_calls p WHERE p.id = ${row.id}`;
  if (result.updated === 1) return { assignedTo: input.assignee };
  // The statement sees the row as it was before its own update, so this is what beat us.
  if (result.status !== 'pending') {
    throw new ApiError(409, 'ALREADY_DECIDED', 'This call was already decided.', { decidedBy: result.decidedBy, status: result.status });
  }
  // Already so (a double click, a release of a call nobody holds): nothing to change or record.
  if (result.assignedTo === input.assignee) return { assignedTo: input.assignee };
  if (!result.eligible) throw new ApiError(422, 'INVALID_ASSIGNEE', 'This account was deactivated or lost its reviewer role just now; assign the call to someone who can decide it.');
  throw new ApiError(409, 'ASSIGNMENT_CHANGED', 'Someone else changed who works on this call.', { assignedTo: result.assignedTo });
}

/** Why an admin's change took calls away from their assignee (kept as the `released` entry's body). */
export const RELEASE_REASONS = {
  deactivated: 'account deactivated',
  role_changed: 'can no longer decide it after a role change',
} as const;
export type ReleaseReason = keyof typeof RELEASE_REASONS;

/**
 * Releases every pending call assigned to `userId` that this person can no longer decide, after an
 * admin deactivated the account or changed its role (run inside that change's transaction, after its
 * UPDATE of `users`): calls of a deactivated account, of an account that is no longer a reviewer or
 * admin, and calls escalated to admins held by someone who is no longer one. Each is an append-only
 * `released` activity by the admin (its `assignee` is the person released from, its body the reason)
 * and a NOTIFY on `countersign_pending`, so every inbox shows the call under "Unassigned" again.
 * Without this a deactivated reviewer's calls left every "For me" queue and stayed assigned to
 * someone who could never act on them.
 *
 * @param db the admin change's transaction
 * @returns how many calls were released (0 when the person can still decide all of theirs)
 */
export async function releaseUndecidableAssignments(
  db: Pick<PrismaClient, '$queryRaw'>,
  input: { userId: string; actor: Actor; reason: ReleaseReason },
): Promise<number> {
  const [{ released }] = await db.$queryRaw<{ released: number }[]>`
    WITH person AS (
      SELECT id, role, banned IS TRUE AS banned FROM users WHERE id = ${input.userId}
    ),
    undecidable AS (
      SELECT p.id FROM pending_tool_calls p, person u
      WHERE p.assigned_to = u.id AND p.status = 'pending'
        AND (u.banned OR u.role NOT IN ('reviewer', 'admin') OR (p.assigned_to_role = 'admin' AND u.role <> 'admin'))
      FOR UPDATE OF p
    ),
    updated AS (
      UPDATE pending_tool_calls p SET assigned_to = NULL, assigned_at = NULL
      FROM undecidable WHERE p.id = undecidable.id AND p.status = 'pending'
      RETURNING p.id
    ),
    activity AS (
      INSERT INTO call_activity (id, pending_call_id, kind, actor_id, actor_role, assignee, body)
      SELECT gen_random_uuid()::text, id, 'released', ${input.actor.id}, ${input.actor.role}, ${input.userId}, ${RELEASE_REASONS[input.reason]} FROM updated
    ),
    notified AS (
      SELECT pg_notify('countersign_pending', json_build_object('id', id, 'change', 'assignment')::text) FROM updated
    )
    SELECT (SELECT count(*)::int FROM updated) AS released, (SELECT count(*)::int FROM notified) AS notified`;
  return released;
}
