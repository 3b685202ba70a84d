import 'server-only';
import type { ChatRequest } from '@/app/api/chat/schema';
import type { Actor } from '@/lib/agent/tool';
import { MAX_MESSAGE_CHARS } from '@/lib/chat/limits';
import { ApiError } from '@/lib/http/errors';
import { uiStreamResponse } from '@/lib/http/sse';
import { checkThreadOwner, type RunAccessRow, type ThreadInfo } from '@/lib/runs/access';
import { defaultAgentId, getAgent } from '@/lib/runs/agents';
import { approvalCommand, decideToolCall } from '@/lib/runs/decision';

/**
 * One `POST /api/chat` turn, after the route has checked who is asking and read the body: a new
 * user message starts a run; a `decision` or `resume` body continues one instead.
 */

/**
 * The new user message's text. The server never trusts history from the client: only this is read.
 * @param body the parsed chat request (neither `decision` nor `resume`)
 * @returns the message's text parts joined and trimmed (1–MAX_MESSAGE_CHARS characters)
 * @throws ApiError 400 BAD_REQUEST (not the user's, or a text part whose text is not a string) /
 *   EMPTY_MESSAGE, 413 MESSAGE_TOO_LONG
 */
export function newUserText(body: ChatRequest): string {
  const last = body.messages.at(-1);
  if (!last || last.role !== 'user') throw new ApiError(400, 'BAD_REQUEST', 'The last message must be the user’s.');
  const notText = last.parts.findIndex((part) => part.type === 'text' && typeof part.text !== 'string');
  if (notText >= 0) {
    const path = ['messages', body.messages.length - 1, 'parts', notText, 'text'];
    throw new ApiError(400, 'BAD_REQUEST', 'A text part’s text must be a string.', [{ code: 'invalid_type', expected: 'string', path, message: 'Expected a string' }]);
  }
  const text = last.parts
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('')
    .trim();
  if (!text) throw new ApiError(400, 'EMPTY_MESSAGE', 'Type a message first.');
  if (text.length > MAX_MESSAGE_CHARS) {
    throw new ApiError(413, 'MESSAGE_TOO_LONG', `Messages are limited to ${MAX_MESSAGE_CHARS} characters.`);
  }
  return text;
}

/**
 * Runs the turn and answers it as a UI message stream. A decision or an answer is the same decision
 * as the runs routes' (lib/runs/decision.ts), on a run of this thread (read with the thread); a new
 * message runs the thread's agent (or the body's `agentId` for a new thread) as the signed-in actor.
 * @param text the new user message (from newUserText), null for a decision or an answer
 * @param target the thread and the named run, as readChatTarget read them
 * @returns the streaming response
 * @throws ApiError 404 NOT_FOUND (someone else's or a deleted thread), and every error of decideToolCall
 */
export async function runChatTurn(
  body: ChatRequest,
  text: string | null,
  actor: Actor,
  target: { thread: ThreadInfo | null; run: RunAccessRow | null },
): Promise<Response> {
  const thread = checkThreadOwner(target.thread, { actor });
  const context = { actor, threadId: body.id, run: target.run };
  const decided = body.decision
    ? await decideToolCall(approvalCommand(body.decision), context)
    : body.resume
      ? await decideToolCall({ kind: 'resume', ...body.resume }, context)
      : null;
  if (decided) return uiStreamResponse(decided.continuation);
  const agent = getAgent(thread?.agentId ?? body.agentId ?? defaultAgentId());
  const result = await agent.stream(text!, {
    threadId: body.id,
    resourceId: actor.id,
    requester: actor,
    requireToolApproval: body.requireToolApproval,
  });
  return uiStreamResponse(result);
}
