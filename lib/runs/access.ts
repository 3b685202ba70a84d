import 'server-only';
import type { Actor } from '@/lib/agent/tool';
import { ApiError } from '@/lib/http/errors';
import { countInWindow as countInWindowOf, enforceRateLimit, windowCounter, type RateLimit } from '@/lib/http/rate-limit';
import { Prisma } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { hotQuery } from '@/lib/store/hot';

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

/** A thread as the routes need it: owner, title, agent and deletion time. */
export type ThreadInfo = { resourceId: string; title: string; agentId: string; deletedAt: Date | null };

/**
 * Asserts the thread rule for `threadId`. A thread that does not exist yet passes unless
 * `mustExist` (the first message creates it, and it becomes the sender's).
 *
 * @param input.resourceId when the request names one (agents API), it must be the actor's own id
 *   (the 403 names that id, also as `yourUserId`)
 * @param input.mustExist answer 404 for a thread that does not exist
 * @returns the thread's owner, title, agent and deletion time, or null when it does not exist yet
 * @throws ApiError 403 FORBIDDEN (resourceId names someone else), 404 NOT_FOUND (someone else's,
 *   deleted, or — with mustExist — unknown thread)
 */
export async function assertThreadOwner(input: { threadId: string; actor: Actor; resourceId?: string; mustExist?: boolean }): Promise<ThreadInfo | null> {
  if (input.resourceId !== undefined && input.resourceId !== input.actor.id) {
    throw new ApiError(403, 'FORBIDDEN', `You can only act as yourself: resourceId must be your own user id, ${input.actor.id} (or leave it out). GET /api/me tells a key's owner.`, {
      yourUserId: input.actor.id,
    });
  }
  const thread = await prisma().thread.findUnique({
    where: { id: input.threadId },
    select: { resourceId: true, title: true, agentId: true, deletedAt: true },
  });
  return checkThreadOwner(thread, input);
}

/**
 * The thread rule on a thread row read already (see `readChatTarget`).
 * @returns `thread`
 * @throws ApiError 404 NOT_FOUND as `assertThreadOwner`
 */
export function checkThreadOwner(thread: ThreadInfo | null, input: { actor: Actor; mustExist?: boolean }): ThreadInfo | null {
  if (thread ? !ownsThread(thread, input.actor) : input.mustExist) {
    throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
  }
  return thread;
}

/** A run's row as the run rule needs it (`checkRunAccess`). */
export type RunAccessRow = { agentId: string; threadId: string; resourceId: string; parentRunId: string | null };

/**
 * What a chat request addresses, read in one statement that also counts it against `rateLimit`:
 * the thread `threadId` and, for a decision or an answer sent in the chat body, the run `runId`.
 * Nothing is checked here, so every well-formed chat request counts, whoever's thread it names: the
 * route then applies the thread rule (`checkThreadOwner`) and the run rule (`checkRunAccess`), in
 * that order, so a refusal names the thread first.
 * @param runId the run the body decides on, or null for a new message
 * @returns the thread row and the run row, each null when it does not exist
 * @throws ApiError 429 RATE_LIMITED
 */
export async function readChatTarget(
  threadId: string,
  runId: string | null,
  rateLimit: RateLimit,
): Promise<{ thread: ThreadInfo | null; run: RunAccessRow | null }> {
  const counter = windowCounter(rateLimit);
  type Row = Partial<ThreadInfo> & { found: boolean; rateCount: number | null; ratePrevious: number } & {
    runFound: boolean;
    runAgentId: string | null;
    runThreadId: string | null;
    runResourceId: string | null;
    runParentRunId: string | null;
  };
  // The same text with or without a run (r.id = NULL matches nothing): one prepared statement.
  const [row] = await hotQuery<Row[]>(prisma(), Prisma.sql`
    WITH ${counter.cte}
    SELECT t.resource_id AS "resourceId", t.title, t.agent_id AS "agentId", t.deleted_at AS "deletedAt", t.id IS NOT NULL AS found,
      r.id IS NOT NULL AS "runFound", r.agent_id AS "runAgentId", r.thread_id AS "runThreadId", r.resource_id AS "runResourceId",
      r.parent_run_id AS "runParentRunId", ${counter.columns}
    FROM (SELECT 1) one LEFT JOIN threads t ON t.id = ${threadId} LEFT JOIN runs r ON r.id = ${runId}::text`);
  enforceRateLimit(rateLimit.limit, counter.result(row)!);
  return {
    thread: row.found ? { resourceId: row.resourceId!, title: row.title!, agentId: row.agentId!, deletedAt: row.deletedAt ?? null } : null,
    run: row.runFound
      ? { agentId: row.runAgentId!, threadId: row.runThreadId!, resourceId: row.runResourceId!, parentRunId: row.runParentRunId }
      : null,
  };
}

/**
 * The run rule on a run row read already (`readChatTarget`, `assertRunAccess`): the run must be
 * top-level, reachable by `actor` (`mayReachRun`) and, when `threadId` is given, of that thread.
 * @returns the run's agent and thread
 * @throws ApiError 404 NO_SNAPSHOT_FOUND (unknown, not top-level, someone else's, or of another thread)
 */
export function checkRunAccess(run: RunAccessRow | null | undefined, runId: string, actor: Actor, threadId?: string): { agentId: string; threadId: string } {
  if (!run || run.parentRunId !== null || !mayReachRun(run, actor) || (threadId && run.threadId !== threadId)) {
    throw new ApiError(404, 'NO_SNAPSHOT_FOUND', `No paused run ${runId}.`);
  }
  return { agentId: run.agentId, threadId: run.threadId };
}

/**
 * Asserts the run rule for a top-level run; with `rateLimit`, a reachable run's request is counted
 * against it in the same statement (an unreachable one is not counted).
 * @param threadId when given, the run must belong to this thread too
 * @returns the run's agent and thread
 * @throws ApiError 404 NO_SNAPSHOT_FOUND (unknown, not top-level, someone else's, or of another
 *   thread), 429 RATE_LIMITED
 */
export async function assertRunAccess(runId: string, actor: Actor, threadId?: string, rateLimit?: RateLimit): Promise<{ agentId: string; threadId: string }> {
  type Row = RunAccessRow & { rateCount: number | null; ratePrevious: number };
  let run: Row | undefined;
  let counter: ReturnType<typeof windowCounter> | undefined;
  if (rateLimit) {
    // mayReachRun and the thread condition below, in SQL: only a reachable run's request counts.
    const reachable = Prisma.sql`EXISTS (SELECT 1 FROM runs WHERE id = ${runId} AND parent_run_id IS NULL
      AND (${actor.role}::text <> 'user' OR resource_id = ${actor.id})
      AND (${threadId ?? null}::text IS NULL OR thread_id = ${threadId ?? null}))`;
    counter = windowCounter(rateLimit, reachable);
    [run] = await hotQuery<Row[]>(prisma(), Prisma.sql`
      WITH ${counter.cte}
      SELECT r.agent_id AS "agentId", r.thread_id AS "threadId", r.resource_id AS "resourceId", r.parent_run_id AS "parentRunId", ${counter.columns}
      FROM runs r WHERE r.id = ${runId}`);
  } else {
    const found = await prisma().run.findUnique({
      where: { id: runId },
      select: { agentId: true, threadId: true, resourceId: true, parentRunId: true },
    });
    run = found ? { ...found, rateCount: null, ratePrevious: 0 } : undefined;
  }
  const reached = checkRunAccess(run, runId, actor, threadId);
  if (rateLimit && counter) {
    const counted = counter.result(run!); // run exists: checkRunAccess threw otherwise
    // The SQL condition mirrors the rule just checked; if they ever disagree, count the usual way.
    enforceRateLimit(rateLimit.limit, counted ?? (await countInWindowOf(rateLimit)));
  }
  return reached;
}
