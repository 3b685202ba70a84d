import { streamBodySchema, streamInput, streamOptions } from '../../schema';
import { getAgent } from '@/lib/demo/agents';
import { readJson, withErrors } from '@/lib/http/errors';
import { chunkSseResponse } from '@/lib/http/sse';

type Params = { params: Promise<{ agentId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const agent = getAgent((await params).agentId);
  const body = await readJson(request, streamBodySchema);
  const result = await agent.stream(streamInput(body), streamOptions(body));
  return chunkSseResponse(result.fullStream);
});
