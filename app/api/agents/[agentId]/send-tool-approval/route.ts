import { sendToolApprovalBodySchema } from '../../schema';
import { requireActor } from '@/lib/auth/session';
import { parseJson, withErrors } from '@/lib/http/errors';
import { decisionResponse } from '@/lib/runs/decision';
import { withoutSeedClientFields } from '@/lib/runs/decision-body';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ agentId: string }> };

/** Decides or answers the call waiting on a thread, found by thread and resource alone → `{ accepted, runId, toolCallId }`. Accepts Idempotency-Key. */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { agentId } = await params;
  return decisionResponse({
    request,
    actor,
    agentId,
    rateLimit: 'agents',
    parse: (text) => ({ kind: 'by-thread', ...withoutSeedClientFields(parseJson(text, sendToolApprovalBodySchema)) }),
    respond: ({ runId, toolCallId }) => Response.json({ accepted: true, runId, toolCallId }),
  });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
