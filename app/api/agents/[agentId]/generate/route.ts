import { autoResumes, streamBodySchema, streamInput, streamOptions } from '../../schema';
import { requireActor, requireScope } from '@/lib/auth/session';
import { assertThreadOwner } from '@/lib/runs/access';
import { getAgent } from '@/lib/runs/agents';
import { generateResponse, readJson, withErrors } from '@/lib/http/errors';
import { consumeApiRateLimit } from '@/lib/http/rate-limit';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ agentId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const agent = getAgent((await params).agentId);
  const body = await readJson(request, streamBodySchema);
  // Answering a suspended call by a new message is a decision: a key needs decisions:write for it.
  if (autoResumes(body, agent.defaultOptions.autoResumeSuspendedTools)) requireScope(actor, 'decisions:write');
  await assertThreadOwner({ threadId: body.threadId, resourceId: body.resourceId, actor });
  // Counted once the request is well-formed and addresses something the person may reach.
  await consumeApiRateLimit('agents', actor.id);
  return generateResponse(await agent.generate(streamInput(body), streamOptions(body, actor)));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
