import { chatRateLimit, chatRequestSchema, MAX_MESSAGE_CHARS, type ChatRequest } from './schema';
import type { Actor } from '@/lib/agent/tool';
import { requireActor, requireScope } from '@/lib/auth/session';
import { ApiError, parseJson, readBodyText, withErrors } from '@/lib/http/errors';
import { withIdempotency } from '@/lib/http/idempotency';
import { uiStreamResponse } from '@/lib/http/sse';
import { checkThreadOwner, readChatTarget, type RunAccessRow, type ThreadInfo } from '@/lib/runs/access';
import { defaultAgentId, getAgent } from '@/lib/runs/agents';
import { approvalCommand, decideToolCall } from '@/lib/runs/decision';

export const POST = withErrors(async (request: Request) => {
  const actor = await requireActor(request);
  const raw = await readBodyText(request);
  const body = parseJson(raw, chatRequestSchema);
  // A decision or an answer sent through the chat needs the same scope as the decision routes.
  if (body.decision || body.resume) requireScope(actor, 'decisions:write');
  const text = body.decision || body.resume ? null : newUserText(body);
  // Counted once the request is well-formed: refusing garbage is cheap and must change nothing. The
  // thread, and the run a decision or an answer names, are read in the same statement; their rules
  // are applied in chat(), as part of the request.
  const runId = body.decision?.runId ?? body.resume?.runId ?? null;
  const target = await readChatTarget(body.id, runId, { key: `chat:${actor.id}`, ...chatRateLimit() });
  return withIdempotency({ request, actorId: actor.id, body: raw }, () => chat(body, text, actor, target));
});

/**
 * The new user message's text. The server never trusts history from the client: only this is read.
 * @throws ApiError 400 BAD_REQUEST (not the user's, or a text part whose text is not a string) /
 *   EMPTY_MESSAGE, 413 MESSAGE_TOO_LONG
 */
function newUserText(body: ChatRequest): string {
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

async function chat(
  body: ChatRequest,
  text: string | null,
  actor: Actor,
  target: { thread: ThreadInfo | null; run: RunAccessRow | null },
): Promise<Response> {
  const thread = checkThreadOwner(target.thread, { actor });
  // A decision in the chat body is the same decision as the runs routes' (lib/runs/decision.ts), on
  // a run of this thread; the run was read with the thread.
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
