import 'server-only';
import { callContext } from '@/lib/agent/describe';
import type { ContextField, ToolDescription } from '@/lib/agent/tool';
import { loadThreadUIMessages } from '@/lib/chat/threads';
import { describeAppCall } from '@/lib/chat/describe';
import { findTool } from '@/lib/runs/agents';
import { ApiError } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';
import { displayNames } from '@/lib/auth/session';
import type { People } from '@/lib/present/describe';
import { listCallActivity, type CallActivityEntry } from './notes';

/** One message of the conversation shown beside a call: what the requester asked, what the agent said. */
export interface ContextMessage {
  role: 'user' | 'assistant';
  text: string;
  /** Written after the call was made (e.g. a reply to a reviewer's question). */
  after?: true;
}

/** Everything a reviewer sees beside a pending call, besides the call itself. */
export interface CallContext {
  description: ToolDescription | null;
  /** Business facts from the tool's `context` function (e.g. order total, already refunded). */
  fields: ContextField[];
  /** A sentence when the tool's lookup failed. */
  fieldsError?: string;
  /** The last user messages before the call (oldest first), the assistant text that led to it, then the requester's messages since. */
  messages: ContextMessage[];
  threadId: string;
  threadTitle: string;
  /** The requester deleted the thread: no messages, no link. */
  threadDeleted: boolean;
  /** Assignments, notes and questions on the call, oldest first. */
  activity: CallActivityEntry[];
  /** Names of the people the activity mentions. */
  people: People;
}

/** How many of the requester's messages before the call are shown. */
export const CONTEXT_USER_MESSAGES = 3;
const MAX_TEXT = 2_000;

const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

/**
 * The context of one call of the inbox (by its pending-call id): the tool's description and
 * business facts, and the conversation that led to it — the last CONTEXT_USER_MESSAGES user
 * messages before the assistant message holding the call, and that message's text before the
 * call (each cut to 2,000 characters). Reviewers and admins only (the route checks the role).
 *
 * @throws ApiError 404 NOT_FOUND (no such approval or question)
 */
export async function loadCallContext({ pendingCallId }: { pendingCallId: string }): Promise<CallContext> {
  const db = prisma();
  const row = await db.pendingToolCall.findUnique({ where: { id: pendingCallId } });
  if (!row || (row.kind !== 'approval' && row.kind !== 'suspension')) throw new ApiError(404, 'NOT_FOUND', 'No such call.');
  const thread = await db.thread.findUnique({ where: { id: row.threadId }, select: { title: true, deletedAt: true, resourceId: true } });
  const tool = findTool(row.toolName);
  const [context, messages, activityByCall] = await Promise.all([
    callContext(tool, row.args, { threadId: row.threadId, resourceId: row.resourceId, requestedBy: row.requestedBy }),
    thread && !thread.deletedAt ? loadThreadUIMessages({ threadId: row.threadId, resourceId: thread.resourceId }) : Promise.resolve(null),
    listCallActivity([row.id]),
  ]);
  const activity = activityByCall.get(row.id) ?? [];
  const people = await displayNames(activity.flatMap((entry) => [entry.actorId, ...(entry.assignee ? [entry.assignee] : [])]));

  const shown: ContextMessage[] = [];
  if (messages) {
    // The assistant message holding this call's card (a continuation streams into the same message).
    const at = messages.findIndex(
      (message) =>
        message.role === 'assistant' &&
        message.parts.some(
          (part) =>
            (part.type === 'data-tool-call-approval' || part.type === 'data-tool-call-suspended') &&
            part.data.runId === row.rootRunId &&
            part.data.toolCallId === row.rootToolCallId,
        ),
    );
    const before = at >= 0 ? messages.slice(0, at) : messages;
    const users = before.filter((message) => message.role === 'user').slice(-CONTEXT_USER_MESSAGES);
    for (const message of users) {
      shown.push({ role: 'user', text: clip(message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')) });
    }
    if (at >= 0) {
      const parts = messages[at].parts;
      const card = parts.findIndex(
        (part) => (part.type === 'data-tool-call-approval' || part.type === 'data-tool-call-suspended') && part.data.toolCallId === row.rootToolCallId,
      );
      const text = parts
        .slice(0, card)
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('')
        .trim();
      if (text) shown.push({ role: 'assistant', text: clip(text) });
      // What the requester wrote after the call (e.g. a reply to a reviewer's question).
      const replies = messages.slice(at + 1).filter((message) => message.role === 'user').slice(-CONTEXT_USER_MESSAGES);
      for (const message of replies) {
        shown.push({ role: 'user', after: true, text: clip(message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')) });
      }
    }
  }
  return {
    description: describeAppCall(row.toolName, row.args),
    fields: context.fields,
    ...(context.error ? { fieldsError: context.error } : {}),
    messages: shown,
    threadId: row.threadId,
    threadTitle: thread?.title ?? 'Chat',
    threadDeleted: !thread || thread.deletedAt !== null,
    activity,
    people,
  };
}

/**
 * Whether a reviewer or admin may read a thread they do not own: only one that holds an approval or
 * a question (pending or decided), since those are what the inbox shows them. Deleted threads are closed.
 * @returns the thread's owner and title, or null (callers answer 404)
 */
export async function reviewableThread(threadId: string): Promise<{ resourceId: string; title: string } | null> {
  const thread = await prisma().thread.findFirst({
    where: { id: threadId, deletedAt: null, runs: { some: { pendingCalls: { some: { kind: { in: ['approval', 'suspension'] } } } } } },
    select: { resourceId: true, title: true },
  });
  return thread;
}
