import 'server-only';
import type { Actor } from '@/lib/agent/tool';
import { ApiError } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';

/**
 * End users reach only their own runs; reviewers and admins reach any. Someone else's run answers
 * exactly like an unknown one, so ids cannot be probed.
 * @param threadId when given, the run must belong to this thread too
 * @returns the run's agent and thread
 * @throws ApiError 404 NO_SNAPSHOT_FOUND
 */
export async function assertRunAccess(
  runId: string,
  actor: Actor,
  threadId?: string,
): Promise<{ agentId: string; threadId: string }> {
  const run = await prisma().run.findUnique({
    where: { id: runId },
    select: { agentId: true, threadId: true, resourceId: true, parentRunId: true },
  });
  if (!run || run.parentRunId !== null || (actor.role === 'user' && run.resourceId !== actor.id) || (threadId && run.threadId !== threadId)) {
    throw new ApiError(404, 'NO_SNAPSHOT_FOUND', `No paused run ${runId}.`);
  }
  return { agentId: run.agentId, threadId: run.threadId };
}

/**
 * Whether the signed-in person may write into a thread (chat, agents API: start a run, answer by
 * auto-resume, decide by thread): everyone acts only as themself — `resourceId` must be their own
 * id, whatever their role — and only on their own threads (or a new one, which becomes theirs).
 * Reviewers decide other people's calls by run id (runs routes, approve/decline), never by writing
 * into their threads. A deleted thread is closed to everyone. Someone else's or a deleted thread
 * answers like an unknown one. A thread that does not exist yet passes (the first message creates it).
 *
 * @returns the thread's owner and title, or null when it does not exist yet
 * @throws ApiError 403 FORBIDDEN (resourceId names someone else), 404 NOT_FOUND (someone else's or a deleted thread)
 */
export async function assertThreadAccess(input: {
  threadId: string;
  resourceId: string;
  actor: Actor;
}): Promise<{ resourceId: string; title: string } | null> {
  if (input.resourceId !== input.actor.id) {
    throw new ApiError(403, 'FORBIDDEN', 'You can only act as yourself: resourceId must be your own user id.');
  }
  const thread = await prisma().thread.findUnique({
    where: { id: input.threadId },
    select: { resourceId: true, title: true, deletedAt: true },
  });
  if (thread && (thread.resourceId !== input.actor.id || thread.deletedAt !== null)) {
    throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
  }
  return thread ? { resourceId: thread.resourceId, title: thread.title } : null;
}
