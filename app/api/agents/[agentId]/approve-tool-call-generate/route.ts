import { approveBodySchema } from '../../schema';
import { summariseChunks } from '@/lib/agent/generate';
import { requireActor } from '@/lib/auth/session';
import { generateResponse, parseJson, withErrors } from '@/lib/http/errors';
import { decisionResponse } from '@/lib/runs/decision';

type Params = { params: Promise<{ agentId: string }> };

/** Approves a pending call; the continuation's result as JSON. Accepts Idempotency-Key (lib/runs/decision.ts). */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { agentId } = await params;
  return decisionResponse({
    request,
    actor,
    agentId,
    rateLimit: 'agents',
    parse: (text) => ({ kind: 'approve', ...parseJson(text, approveBodySchema) }),
    respond: async ({ continuation }) => generateResponse(await summariseChunks(continuation)),
  });
});
