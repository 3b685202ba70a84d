import { resumeBodySchema } from '../../schema';
import { requireActor } from '@/lib/auth/session';
import { assertRunAccess } from '@/lib/chat/access';
import { getAgent } from '@/lib/demo/agents';
import { readJson, withErrors } from '@/lib/http/errors';
import { consumeApiRateLimit } from '@/lib/http/rate-limit';
import { chunkSseResponse } from '@/lib/http/sse';

type Params = { params: Promise<{ agentId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const agent = getAgent((await params).agentId);
  const { resumeData, ...target } = await readJson(request, resumeBodySchema);
  await assertRunAccess(target.runId, actor);
  // Counted once the request is well-formed and addresses something the person may reach.
  await consumeApiRateLimit('agents', actor.id);
  const result = await agent.resumeStream(resumeData, { ...target, actor });
  return chunkSseResponse(result.fullStream);
});
