import 'server-only';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Actor } from '@/lib/agent/tool';
import { ApiError } from '@/lib/http/errors';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';

/** POST /api/inbox/calls/{id}/notes. */
export const noteSchema = z.object({
  /** `comment`: a note for reviewers and the audit; `question`: also sent into the requester's chat. */
  kind: z.enum(['comment', 'question']),
  body: z.string().trim().min(1, 'Write something first.').max(2_000),
});
export type NoteInput = z.infer<typeof noteSchema>;

/** One entry of a call's activity besides its decision, as the inbox and the audit show it. */
export interface CallActivityEntry {
  id: string;
  kind: 'assigned' | 'released' | 'comment' | 'question';
  actorId: string;
  assignee: string | null;
  body: string | null;
  /** ISO 8601 */
  at: string;
}

/**
 * Adds a reviewer's note to a pending call without deciding it, in one statement: an append-only
 * `call_activity` record (kept for the audit) and a NOTIFY on `countersign_pending` — with the
 * call's thread for a question, so the requester's open chat shows it at once.
 *
 * @returns the stored entry
 * @throws ApiError 404 NOT_FOUND (no such call), 409 ALREADY_DECIDED (no longer pending: notes
 *   and questions are for calls still waiting; details: decidedBy)
 */
export async function addNote(input: NoteInput & { pendingCallId: string; actor: Actor }): Promise<CallActivityEntry> {
  const id = randomUUID();
  const rows = await prisma().$queryRaw<{ status: string; decidedBy: string | null; inserted: number; notified: number; at: Date | null }[]>`
    WITH call AS (
      SELECT id, status, decided_by, thread_id FROM pending_tool_calls WHERE id = ${input.pendingCallId} AND kind IN ('approval', 'suspension')
    ),
    inserted AS (
      INSERT INTO call_activity (id, pending_call_id, kind, actor_id, actor_role, body)
      SELECT ${id}, c.id, ${input.kind}, ${input.actor.id}, ${input.actor.role}, ${input.body} FROM call c WHERE c.status = 'pending'
      RETURNING created_at
    ),
    notified AS (
      SELECT pg_notify('countersign_pending', json_build_object('id', c.id, 'change', ${input.kind}::text,
        'threadId', CASE WHEN ${input.kind} = 'question' THEN c.thread_id END)::text)
      FROM call c WHERE EXISTS (SELECT 1 FROM inserted)
    )
    SELECT c.status, c.decided_by AS "decidedBy", (SELECT count(*)::int FROM inserted) AS inserted,
      (SELECT count(*)::int FROM notified) AS notified, (SELECT created_at FROM inserted) AS at
    FROM call c`;
  const [row] = rows;
  if (!row) throw new ApiError(404, 'NOT_FOUND', 'No such call.');
  if (row.inserted !== 1 || !row.at) {
    throw new ApiError(409, 'ALREADY_DECIDED', 'This call was already decided; notes are for calls still waiting.', { decidedBy: row.decidedBy, status: row.status });
  }
  return { id, kind: input.kind, actorId: input.actor.id, assignee: null, body: input.body, at: row.at.toISOString() };
}

/**
 * The activity on the given calls (assignments, notes, questions), oldest first.
 * @returns entries by pending-call id
 */
export async function listCallActivity(pendingCallIds: string[], db: PrismaClient = prisma()): Promise<Map<string, CallActivityEntry[]>> {
  const out = new Map<string, CallActivityEntry[]>();
  if (pendingCallIds.length === 0) return out;
  const rows = await db.callActivity.findMany({ where: { pendingCallId: { in: pendingCallIds } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  for (const row of rows) {
    const list = out.get(row.pendingCallId) ?? [];
    list.push({ id: row.id, kind: row.kind as CallActivityEntry['kind'], actorId: row.actorId, assignee: row.assignee, body: row.body, at: row.createdAt.toISOString() });
    out.set(row.pendingCallId, list);
  }
  return out;
}
