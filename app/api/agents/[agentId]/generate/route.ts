import { streamBodySchema, streamInput, streamOptions } from '../../schema';
import { getAgent } from '@/lib/demo/agents';
import { readJson, withErrors } from '@/lib/http/errors';

type Params = { params: Promise<{ agentId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const agent = getAgent((await params).agentId);
  const body = await readJson(request, streamBodySchema);
  return Response.json(await agent.generate(streamInput(body), streamOptions(body)));
});
