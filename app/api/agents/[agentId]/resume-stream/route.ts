import { resumeBodySchema } from '../../schema';
import { currentReviewer } from '@/lib/auth/demo';
import { getAgent } from '@/lib/demo/agents';
import { readJson, withErrors } from '@/lib/http/errors';
import { chunkSseResponse } from '@/lib/http/sse';

type Params = { params: Promise<{ agentId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const agent = getAgent((await params).agentId);
  const { resumeData, ...target } = await readJson(request, resumeBodySchema);
  const result = await agent.resumeStream(resumeData, { ...target, actor: currentReviewer() });
  return chunkSseResponse(result.fullStream);
});
