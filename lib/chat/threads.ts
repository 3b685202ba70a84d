import 'server-only';
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { AgentChunk } from '@/lib/agent/chunks';
import type { Actor } from '@/lib/agent/tool';
import { ApiError } from '@/lib/http/errors';
import { assertThreadOwner, ownsThread } from '@/lib/runs/access';
import { prisma } from '@/lib/store/db';
import { findActiveSegment } from './tail';
import { describeAppCall } from './describe';
import { toUIChunks, type ApprovalCardData, type CountersignDataTypes, type ReviewerQuestionData, type SuspendedCardData } from '@/lib/ui-stream/map';
import type { Prisma } from '@/lib/generated/prisma/client';

export type ChatMessage = UIMessage<unknown, CountersignDataTypes>;

export interface ThreadSummary {
  id: string;
  title: string;
  /** ISO 8601: when the thread began, and when it last had a message */
  createdAt: string;
  updatedAt: string;
  /** Calls of the thread waiting for a decision or an answer (approvals and questions). */
  pending: number;
}

/**
 * The resource's threads, newest activity first, deleted ones left out.
 * @param input.resourceId owner (end user id)
 * @param input.limit at most this many (default 50)
 */
export async function listThreads({ resourceId, limit = 50 }: { resourceId: string; limit?: number }): Promise<ThreadSummary[]> {
  const db = prisma();
  const rows = await db.thread.findMany({
    where: { resourceId, deletedAt: null },
    orderBy: { updatedAt: 'desc' },
    take: limit,
    select: { id: true, title: true, createdAt: true, updatedAt: true },
  });
  // Leaf calls only: a delegation's own row waits ('waiting') on the leaf that is 'pending'.
  const pending = await db.pendingToolCall.groupBy({
    by: ['threadId'],
    where: { threadId: { in: rows.map((row) => row.id) }, status: 'pending' },
    _count: { _all: true },
  });
  const pendingOf = new Map(pending.map((row) => [row.threadId, row._count._all]));
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    pending: pendingOf.get(row.id) ?? 0,
  }));
}

/**
 * Renames one of the actor's own threads; its place in the list (last activity) does not change.
 * @throws ApiError 404 NOT_FOUND (unknown, deleted, or someone else's thread)
 */
export async function renameThread(input: { threadId: string; actor: Actor; title: string }): Promise<{ id: string; title: string }> {
  await assertThreadOwner({ threadId: input.threadId, actor: input.actor, mustExist: true });
  const db = prisma();
  const current = await db.thread.findUniqueOrThrow({ where: { id: input.threadId }, select: { updatedAt: true } });
  const { count } = await db.thread.updateMany({
    where: { id: input.threadId, resourceId: input.actor.id, deletedAt: null },
    data: { title: input.title, updatedAt: current.updatedAt },
  });
  if (count === 0) throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
  return { id: input.threadId, title: input.title };
}

/**
 * Deletes one of the actor's own threads: it leaves their list and can no longer be opened or
 * continued. Its runs and decisions are kept, because the audit log is append-only.
 *
 * A thread with a call waiting for a decision or an answer, or with the agent still working, is
 * refused and nothing changes: the call is decided, declined or answered first (we never decline
 * on the person's behalf, and a reviewer-only call is not theirs to decline). The conditions and
 * the delete are one UPDATE statement, so they are judged on the same rows.
 *
 * @throws ApiError 404 NOT_FOUND (unknown, already deleted, or someone else's thread),
 *   409 THREAD_HAS_PENDING_CALLS (details: { pending }), 409 THREAD_BUSY (a run is still working)
 */
export async function deleteThread(input: { threadId: string; actor: Actor }): Promise<void> {
  await assertThreadOwner({ threadId: input.threadId, actor: input.actor, mustExist: true });
  const db = prisma();
  const open = { in: ['pending', 'waiting'] };
  const { count } = await db.thread.updateMany({
    where: {
      id: input.threadId,
      resourceId: input.actor.id,
      deletedAt: null,
      runs: { none: { OR: [{ status: { in: ['running', 'suspended'] } }, { pendingCalls: { some: { status: open } } }] } },
    },
    data: { deletedAt: new Date() },
  });
  if (count === 1) return;
  const pending = await db.pendingToolCall.count({ where: { threadId: input.threadId, status: 'pending' } });
  if (pending > 0) {
    throw new ApiError(
      409,
      'THREAD_HAS_PENDING_CALLS',
      `This chat has ${pending === 1 ? 'an action' : `${pending} actions`} waiting for a decision or an answer, so it cannot be deleted yet. ` +
        `Approve, decline or answer ${pending === 1 ? 'it' : 'them'} first (or wait for the reviewer), then delete the chat.`,
      { pending },
    );
  }
  const running = await db.run.count({ where: { threadId: input.threadId, status: { in: ['running', 'suspended'] } } });
  if (running > 0) throw new ApiError(409, 'THREAD_BUSY', 'The agent is still working in this chat. Wait until it has finished, then delete the chat.');
  throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
}

/** Replays UI chunks into one assistant message. */
async function toMessage(messageId: string, chunks: UIMessageChunk[]): Promise<ChatMessage | null> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: ChatMessage | null = null;
  for await (const message of readUIMessageStream<ChatMessage>({ message: { id: messageId, role: 'assistant', parts: [] }, stream })) {
    last = message;
  }
  return last;
}

/**
 * The thread as `useChat` messages, rebuilt from the server's own records: user messages from
 * memory, and assistant messages replayed from the runs' event logs (each `start` chunk names the
 * assistant message its segment streams into), ordered by time with a user message first on a tie.
 * Pending and decided cards come back as they were streamed, except that a card whose call is no
 * longer pending in the pending-call table shows that decision even before the run logged it (the
 * table is read after the log, so it is never older than the cards).
 *
 * @returns null when the thread does not exist or is not the resource's (callers answer 404)
 */
export async function loadThreadUIMessages({ threadId, resourceId }: { threadId: string; resourceId: string }): Promise<ChatMessage[] | null> {
  const db = prisma();
  const thread = await db.thread.findUnique({ where: { id: threadId } });
  if (!thread || !ownsThread(thread, { id: resourceId })) return null;
  const [userMessages, allEvents, active] = await Promise.all([
    db.message.findMany({ where: { threadId, role: 'user' }, orderBy: { seq: 'asc' } }),
    db.runEvent.findMany({
      where: { run: { threadId, parentRunId: null } },
      orderBy: { id: 'asc' },
      select: { id: true, runId: true, chunk: true, createdAt: true },
    }),
    findActiveSegment(threadId),
  ]);
  // A segment still streaming is left out: `GET /api/chat/{id}/stream` replays its whole message,
  // so a reload shows it exactly once.
  const events = active
    ? allEvents.filter((event) => event.runId !== active.runId || event.id < active.startEventId)
    : allEvents;

  type Segment = { messageId: string; at: Date; chunks: UIMessageChunk[] };
  const segments = new Map<string, Segment>();
  const currentMessageOfRun = new Map<string, string>();
  for (const event of events) {
    const chunk = event.chunk as unknown as AgentChunk;
    if (chunk.type === 'start') currentMessageOfRun.set(event.runId, chunk.payload.messageId);
    const messageId = currentMessageOfRun.get(event.runId);
    if (!messageId) continue;
    let segment = segments.get(messageId);
    if (!segment) {
      segment = { messageId, at: event.createdAt, chunks: [] };
      segments.set(messageId, segment);
    }
    segment.chunks.push(...toUIChunks(chunk, event.runId, describeAppCall));
  }

  const timeline: { at: number; order: number; build: () => Promise<ChatMessage | null> }[] = [];
  for (const message of userMessages) {
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    const built: ChatMessage = { id: message.id, role: 'user', parts: [{ type: 'text', text }] };
    timeline.push({ at: message.createdAt.getTime(), order: 0, build: async () => built });
  }
  for (const segment of segments.values()) {
    timeline.push({ at: segment.at.getTime(), order: 1, build: () => toMessage(segment.messageId, segment.chunks) });
  }
  // Reviewers' questions about this thread's calls, each a message of its own at its time.
  for (const question of await reviewerQuestions(threadId)) {
    timeline.push({ at: question.at, order: 2, build: async () => question.message });
  }
  timeline.sort((a, b) => a.at - b.at || a.order - b.order);
  const out: ChatMessage[] = [];
  for (const entry of timeline) {
    const message = await entry.build();
    if (message) out.push(message);
  }
  const calls = await db.pendingToolCall.findMany({
    where: { threadId, kind: { in: ['approval', 'suspension'] } },
    orderBy: { seq: 'asc' },
  });
  return withDecisions(out, calls);
}

/** The questions reviewers sent about the thread's calls, as chat messages (see ReviewerQuestionData). */
async function reviewerQuestions(threadId: string): Promise<{ at: number; message: ChatMessage }[]> {
  const rows = await prisma().callActivity.findMany({
    where: { kind: 'question', pendingCall: { threadId } },
    include: { pendingCall: { select: { toolName: true, args: true, rootToolCallId: true } } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  if (rows.length === 0) return [];
  const people = await prisma().user.findMany({ where: { id: { in: [...new Set(rows.map((row) => row.actorId))] } }, select: { id: true, name: true, email: true } });
  const byId = new Map(people.map((person) => [person.id, person]));
  return rows.map((row) => {
    const person = byId.get(row.actorId);
    const data: ReviewerQuestionData = {
      by: row.actorId,
      byName: person?.name ?? 'A reviewer',
      byEmail: person?.email ?? null,
      at: row.createdAt.toISOString(),
      body: row.body ?? '',
      toolName: row.pendingCall.toolName,
      title: describeAppCall(row.pendingCall.toolName, row.pendingCall.args)?.title ?? null,
      toolCallId: row.pendingCall.rootToolCallId,
    };
    const message: ChatMessage = { id: `question-${row.id}`, role: 'assistant', parts: [{ type: 'data-reviewer-question', id: row.id, data }] };
    return { at: row.createdAt.getTime(), message };
  });
}

type PendingRow = Prisma.PendingToolCallGetPayload<object>;

/**
 * Shows a card as decided when the newest pending-call row it addresses (top-level run and qualified
 * call id) was claimed: a decision is committed before its continuation logs `tool-call-resumed`, and
 * a reload in between must not offer the call again.
 */
function withDecisions(messages: ChatMessage[], calls: PendingRow[]): ChatMessage[] {
  const newest = new Map<string, PendingRow>();
  for (const call of calls) newest.set(`${call.rootRunId} ${call.rootToolCallId}`, call);
  return messages.map((message) => ({
    ...message,
    parts: message.parts.map((part) => {
      if ((part.type !== 'data-tool-call-approval' && part.type !== 'data-tool-call-suspended') || part.data.resumed) return part;
      const row = newest.get(`${part.data.runId} ${part.data.toolCallId}`);
      if (row?.status === 'pending' && row.deadlineAt && row.deadlineAction && part.type === 'data-tool-call-approval') {
        // A waiting call's deadline (and escalation), as it stands now.
        const deadline: ApprovalCardData['deadline'] = {
          at: row.deadlineAt.toISOString(),
          action: row.deadlineAction as 'decline' | 'escalate',
          ...(row.escalatedAt ? { escalatedAt: row.escalatedAt.toISOString(), assignedToRole: row.assignedToRole ?? 'admin' } : {}),
        };
        return { ...part, data: { ...part.data, deadline } };
      }
      if (!row || row.status === 'pending' || !row.decidedBy || !row.decidedAt) return part;
      const decided = { by: row.decidedBy, at: row.decidedAt.toISOString() };
      if (part.type === 'data-tool-call-suspended') {
        const data: SuspendedCardData = { ...part.data, resumed: true, decision: { ...decided, resumeData: row.resumeData ?? undefined } };
        return { ...part, data };
      }
      const approved = row.status !== 'declined';
      const edited = row.fingerprint !== part.data.fingerprint;
      const data: ApprovalCardData = {
        ...part.data,
        ...(edited ? { args: row.args, fingerprint: row.fingerprint } : {}),
        resumed: true,
        decision: {
          approved,
          ...(!approved && row.decisionReason ? { reason: row.decisionReason } : {}),
          ...(edited ? { editedFrom: part.data.args } : {}),
          ...decided,
        },
      };
      return { ...part, data };
    }),
  }));
}

/**
 * `GET /api/chat/{id}`: the thread's messages for its owner. A thread id nobody has used yet is an
 * empty list (the chat that will create it is open); someone else's or a deleted thread is 404.
 * @returns the messages, as loadThreadUIMessages builds them
 * @throws ApiError 404 NOT_FOUND
 */
export async function threadMessagesFor({ threadId, actor }: { threadId: string; actor: Actor }): Promise<ChatMessage[]> {
  const messages = await loadThreadUIMessages({ threadId, resourceId: actor.id });
  if (messages) return messages;
  if (await prisma().thread.count({ where: { id: threadId } })) throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
  return [];
}

/**
 * Everyone a thread's cards name, for the page to look up their display names: who decided or
 * answered each call, and who has approved a quorum call so far.
 * @returns user ids, possibly repeated
 */
export function peopleOnCards(messages: ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    message.parts.flatMap((part) => {
      if (part.type === 'data-tool-call-approval') return [...(part.data.approvedBy ?? []), ...(part.data.decision ? [part.data.decision.by] : [])];
      if (part.type === 'data-tool-call-suspended') return part.data.decision ? [part.data.decision.by] : [];
      return [];
    }),
  );
}
