import { chatRateLimit, chatRequestSchema, MAX_MESSAGE_CHARS, type ChatRequest } from './schema';
import type { Actor } from '@/lib/agent/tool';
import { requireActor } from '@/lib/auth/session';
import { continueRun, uiStreamResponse } from '@/lib/chat/continue';
import { DEFAULT_AGENT_ID, getAgent } from '@/lib/demo/agents';
import { ApiError, parseJson, readBodyText, withErrors } from '@/lib/http/errors';
import { withIdempotency } from '@/lib/http/idempotency';
import { consumeRateLimit } from '@/lib/http/rate-limit';
import { prisma } from '@/lib/store/db';

export const POST = withErrors(async (request: Request) => {
  const actor = await requireActor(request);
  const raw = await readBodyText(request);
  const body = parseJson(raw, chatRequestSchema);
  const text = body.decision || body.resume ? null : newUserText(body);
  // Counted once the request is well-formed: refusing garbage is cheap and must change nothing.
  await consumeRateLimit({ key: `chat:${actor.id}`, ...chatRateLimit() });
  return withIdempotency({ request, actorId: actor.id, body: raw }, () => chat(body, text, actor));
});

/**
 * The new user message's text. The server never trusts history from the client: only this is read.
 * @throws ApiError 400 BAD_REQUEST / EMPTY_MESSAGE, 413 MESSAGE_TOO_LONG
 */
function newUserText(body: ChatRequest): string {
  const last = body.messages.at(-1);
  if (!last || last.role !== 'user') throw new ApiError(400, 'BAD_REQUEST', 'The last message must be the user’s.');
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

async function chat(body: ChatRequest, text: string | null, actor: Actor): Promise<Response> {
  const thread = await prisma().thread.findUnique({ where: { id: body.id }, select: { resourceId: true, agentId: true, deletedAt: true } });
  if (thread && (thread.resourceId !== actor.id || thread.deletedAt !== null)) throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
  if (body.decision) return uiStreamResponse(await continueRun({ type: 'decision', ...body.decision, actor, threadId: body.id }));
  if (body.resume) return uiStreamResponse(await continueRun({ type: 'resume', ...body.resume, actor, threadId: body.id }));
  const agent = getAgent(thread?.agentId ?? body.agentId ?? DEFAULT_AGENT_ID);
  const result = await agent.stream(text!, {
    threadId: body.id,
    resourceId: actor.id,
    requester: actor,
    requireToolApproval: body.requireToolApproval,
  });
  return uiStreamResponse(result);
}
