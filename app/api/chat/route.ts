import { chatRequestSchema, MAX_MESSAGE_CHARS } from './schema';
import { currentUser } from '@/lib/auth/demo';
import { continueRun, uiStreamResponse } from '@/lib/chat/continue';
import { DEFAULT_AGENT_ID, getAgent } from '@/lib/demo/agents';
import { ApiError, readJson, withErrors } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';

export const POST = withErrors(async (request: Request) => {
  const body = await readJson(request, chatRequestSchema);
  const actor = currentUser();
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
});
