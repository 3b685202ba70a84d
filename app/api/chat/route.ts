import { chatRequestSchema, MAX_MESSAGE_CHARS, type ChatRequest } from './schema';
import type { Actor } from '@/lib/agent/tool';
import { currentUser } from '@/lib/auth/demo';
import { continueRun, uiStreamResponse } from '@/lib/chat/continue';
import { DEFAULT_AGENT_ID, getAgent } from '@/lib/demo/agents';
import { ApiError, parseJson, readBodyText, withErrors } from '@/lib/http/errors';
import { withIdempotency } from '@/lib/http/idempotency';
import { prisma } from '@/lib/store/db';

export const POST = withErrors(async (request: Request) => {
  const actor = currentUser();
  const text = await readBodyText(request);
  return withIdempotency({ request, actorId: actor.id, body: text }, () => chat(parseJson(text, chatRequestSchema), actor));
});

async function chat(body: ChatRequest, actor: Actor): Promise<Response> {
  const thread = await prisma().thread.findUnique({ where: { id: body.id }, select: { resourceId: true, agentId: true } });
  if (thread && thread.resourceId !== actor.id) throw new ApiError(404, 'NOT_FOUND', 'No such thread.');

  if (body.decision) {
    const result = await continueRun({ type: 'decision', ...body.decision, actor, threadId: body.id });
    return uiStreamResponse(result);
  }
  if (body.resume) {
    const result = await continueRun({ type: 'resume', ...body.resume, actor, threadId: body.id });
    return uiStreamResponse(result);
  }

  // The server never trusts history from the client: only the new user message is read.
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
  const agent = getAgent(thread?.agentId ?? body.agentId ?? DEFAULT_AGENT_ID);
  const result = await agent.stream(text, {
    threadId: body.id,
    resourceId: actor.id,
    requireToolApproval: body.requireToolApproval,
  });
  return uiStreamResponse(result);
}
