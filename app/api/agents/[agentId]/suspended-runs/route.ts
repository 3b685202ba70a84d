import { suspendedRunsQuerySchema } from '../../schema';
import { requireActor } from '@/lib/auth/session';
import { reachableRuns } from '@/lib/runs/access';
import { getAgent } from '@/lib/runs/agents';
import { parseValue, withErrors } from '@/lib/http/errors';
import { consumeApiRateLimit } from '@/lib/http/rate-limit';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ agentId: string }> };

export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const agent = getAgent((await params).agentId);
  const query = parseValue(Object.fromEntries(new URL(request.url).searchParams), suspendedRunsQuerySchema);
  await consumeApiRateLimit('agents', actor.id);
  return Response.json(await agent.listSuspendedRuns(reachableRuns(query, actor)));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
