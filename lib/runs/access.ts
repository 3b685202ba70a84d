import 'server-only';
import type { Actor } from '@/lib/agent/tool';
import { ApiError } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';

/**
 * Who may reach a thread or a run: the one access rule every route and lib/chat apply.
 *
 * - A thread is its owner's alone (whatever their role): only the person whose id is its
 *   `resourceId` reads it, writes into it, decides by it or watches it, and a deleted thread is
 *   closed to everyone. Someone else's or a deleted thread answers like an unknown one (404), so
 *   ids cannot be probed.
 * - A top-level run is reachable by its resource (end users: only their own runs) and by every
 *   reviewer and admin, who decide other people's calls by run id — never by writing into their
 *   threads. Someone else's run answers like an unknown one (404 NO_SNAPSHOT_FOUND).
 */

/** A thread row as the rule needs it. */
export interface ThreadRow {
  resourceId: string;
  deletedAt: Date | null;
}

/** Whether `actor` owns `thread` and it is not deleted: the thread rule, for callers that read the row themselves. */
export function ownsThread(thread: ThreadRow, actor: Pick<Actor, 'id'>): boolean {
  return thread.resourceId === actor.id && thread.deletedAt === null;
}

/** Whether `actor` may reach a top-level run of `resourceId`: its resource, or any reviewer or admin. */
export function mayReachRun(run: { resourceId: string }, actor: Actor): boolean {
  return actor.role !== 'user' || run.resourceId === actor.id;
}

/**
 * A run listing's filter narrowed to the runs `actor` may reach (the run rule as a query): end
 * users see only their own, whatever they ask for.
 */
export function reachableRuns<Q extends { resourceId?: string }>(query: Q, actor: Actor): Q {
  return actor.role === 'user' ? { ...query, resourceId: actor.id } : query;
}

/**
 * Asserts the thread rule for `threadId`. A thread that does not exist yet passes unless
 * `mustExist` (the first message creates it, and it becomes the sender's).
 *
 * @param input.resourceId when the request names one (agents API), it must be the actor's own id
 * @param input.mustExist answer 404 for a thread that does not exist
 * @returns the thread's owner, title, agent and deletion time, or null when it does not exist yet
 * @throws ApiError 403 FORBIDDEN (resourceId names someone else), 404 NOT_FOUND (someone else's,
 *   deleted, or — with mustExist — unknown thread)
 */
export async function assertThreadOwner(input: {
  threadId: string;
  actor: Actor;
  resourceId?: string;
  mustExist?: boolean;
}): Promise<{ resourceId: string; title: string; agentId: string; deletedAt: Date | null } | null> {
  if (input.resourceId !== undefined && input.resourceId !== input.actor.id) {
    throw new ApiError(403, 'FORBIDDEN', 'You can only act as yourself: resourceId must be your own user id.');
  }
  const thread = await prisma().thread.findUnique({
    where: { id: input.threadId },
    select: { resourceId: true, title: true, agentId: true, deletedAt: true },
  });
  if (thread ? !ownsThread(thread, input.actor) : input.mustExist) {
    throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
  }
  return thread;
}

/**
 * Asserts the run rule for a top-level run.
 * @param threadId when given, the run must belong to this thread too
 * @returns the run's agent and thread
 * @throws ApiError 404 NO_SNAPSHOT_FOUND (unknown, not top-level, someone else's, or of another thread)
 */
export async function assertRunAccess(runId: string, actor: Actor, threadId?: string): Promise<{ agentId: string; threadId: string }> {
  const run = await prisma().run.findUnique({
    where: { id: runId },
    select: { agentId: true, threadId: true, resourceId: true, parentRunId: true },
  });
  if (!run || run.parentRunId !== null || !mayReachRun(run, actor) || (threadId && run.threadId !== threadId)) {
    throw new ApiError(404, 'NO_SNAPSHOT_FOUND', `No paused run ${runId}.`);
  }
  return { agentId: run.agentId, threadId: run.threadId };
}
