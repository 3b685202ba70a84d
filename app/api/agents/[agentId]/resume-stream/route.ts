import { resumeBodySchema } from '../../schema';
import { requireActor } from '@/lib/auth/session';
import { parseJson, withErrors } from '@/lib/http/errors';
import { chunkSseResponse } from '@/lib/http/sse';
import { decisionResponse } from '@/lib/runs/decision';

type Params = { params: Promise<{ agentId: string }> };

/** Answers a suspended call with resumeData; the continuation's chunks as SSE. Accepts Idempotency-Key (lib/runs/decision.ts). */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { agentId } = await params;
  return decisionResponse({
    request,
    actor,
    agentId,
    rateLimit: 'agents',
    parse: (text) => ({ kind: 'resume', ...parseJson(text, resumeBodySchema) }),
    respond: ({ continuation }) => chunkSseResponse(continuation.fullStream),
  });
});
