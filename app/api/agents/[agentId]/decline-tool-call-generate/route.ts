import { declineBodySchema } from '../../schema';
import { currentReviewer } from '@/lib/auth/demo';
import { getAgent } from '@/lib/demo/agents';
import { readJson, withErrors } from '@/lib/http/errors';

type Params = { params: Promise<{ agentId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const agent = getAgent((await params).agentId);
  const body = await readJson(request, declineBodySchema);
  return Response.json(await agent.declineToolCallGenerate({ ...body, actor: currentReviewer() }));
});
