import { suspendedRunsQuerySchema } from '../../schema';
import { requireActor } from '@/lib/auth/session';
import { getAgent } from '@/lib/demo/agents';
import { withErrors } from '@/lib/http/errors';
import { consumeApiRateLimit } from '@/lib/http/rate-limit';

type Params = { params: Promise<{ agentId: string }> };

export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const agent = getAgent((await params).agentId);
  const query = suspendedRunsQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  await consumeApiRateLimit('agents', actor.id);
  // End users see only their own runs, whatever they ask for.
  return Response.json(await agent.listSuspendedRuns(actor.role === 'user' ? { ...query, resourceId: actor.id } : query));
});
