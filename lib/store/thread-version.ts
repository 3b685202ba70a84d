import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';
import { prisma } from './db';

/**
 * A digest of everything the chat page shows of a thread, in one statement: its messages (count and
 * newest), the events of its top-level runs (count and newest: events are only ever appended, so a
 * late commit of a lower id still changes the count), each of its calls' status, deadline,
 * escalation and approvals so far, and the reviewers' questions about them. Two reads give the same
 * digest exactly when none of these changed between them.
 *
 * The chat page reads it *before* the thread's messages, so anything missing from the messages
 * changes the digest; its live feed (`GET /api/chat/{id}/events?since=`) compares it once it listens,
 * and tells the page to re-read when they differ (behaviour §6, live updates).
 *
 * @param threadId the thread (its owner was checked by the caller)
 * @returns the digest (THREAD_VERSION, lib/store/thread-version-format.ts); the same value for a thread with no rows at all
 */
export async function threadVersion(threadId: string): Promise<string> {
  const [row] = await prisma().$queryRaw<{ version: string }[]>(Prisma.sql`
    SELECT md5(concat_ws('|',
      (SELECT count(*) || ':' || coalesce(max(m.seq), 0) FROM messages m WHERE m.thread_id = ${threadId}),
      (SELECT count(*) || ':' || coalesce(max(e.id), 0) FROM run_events e JOIN runs r ON r.id = e.run_id
        WHERE r.thread_id = ${threadId} AND r.parent_run_id IS NULL),
      (SELECT string_agg(concat_ws(',', p.id, p.status, p.deadline_at, p.escalated_at, cardinality(p.approved_by)), ';' ORDER BY p.seq)
        FROM pending_tool_calls p WHERE p.thread_id = ${threadId}),
      (SELECT count(*) FROM call_activity a JOIN pending_tool_calls p ON p.id = a.pending_call_id
        WHERE p.thread_id = ${threadId} AND a.kind = 'question')
    )) AS version`);
  return row.version;
}
