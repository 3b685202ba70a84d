import { suspendedRunsQuerySchema } from '../../schema';
import { getAgent } from '@/lib/demo/agents';
import { withErrors } from '@/lib/http/errors';

type Params = { params: Promise<{ agentId: string }> };

export const GET = withErrors(async (request: Request, { params }: Params) => {
  const agent = getAgent((await params).agentId);
  const query = suspendedRunsQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  return Response.json(await agent.listSuspendedRuns(query));
});
