import { approveBodySchema, declineBodySchema, resumeBodySchema } from './schema';
import { summariseChunks } from '@/lib/agent/generate';
import { requireActor } from '@/lib/auth/session';
import { generateResponse, parseJson, withErrors } from '@/lib/http/errors';
import { chunkSseResponse } from '@/lib/http/sse';
import { decisionResponse, type DecisionCommand } from '@/lib/runs/decision';
import { withoutSeedClientFields } from '@/lib/runs/decision-body';

type Params = { params: Promise<{ agentId: string }> };

type Kind = 'approve' | 'decline' | 'resume';

/** The body as the command of its kind, without the seed client's ignored fields (ApiError 400 BAD_REQUEST when it does not parse). */
function parseCommand(kind: Kind, text: string): DecisionCommand {
  switch (kind) {
    case 'approve':
      return { kind, ...withoutSeedClientFields(parseJson(text, approveBodySchema)) };
    case 'decline':
      return { kind, ...withoutSeedClientFields(parseJson(text, declineBodySchema)) };
    case 'resume':
      return { kind, ...withoutSeedClientFields(parseJson(text, resumeBodySchema)) };
  }
}

/**
 * The POST handler of one agents decision route (the seed framework's approve/decline/resume
 * routes): the signed-in actor, the agent in the path, the body by `kind`, decided through the one
 * decision function (lib/runs/decision.ts, so Idempotency-Key works on all of them), answered as
 * the continuation's chunks over SSE (`stream`) or its result as JSON (`generate`).
 *
 * @param kind approve (`{ runId, toolCallId?, fingerprint?, args? }`), decline (`{ runId, toolCallId?,
 *   fingerprint?, reason?, withdraw? }`) or resume (`{ runId, toolCallId?, resumeData }`); each also
 *   takes the seed client's `model`, `requestContext` and `format`, ignored (lib/runs/decision-body.ts)
 * @param answer `stream` (SSE) or `generate` (JSON summary)
 */
export function agentDecisionRoute(kind: Kind, answer: 'stream' | 'generate') {
  return withErrors(async (request: Request, { params }: Params) => {
    const actor = await requireActor(request);
    const { agentId } = await params;
    return decisionResponse({
      request,
      actor,
      agentId,
      rateLimit: 'agents',
      parse: (text) => parseCommand(kind, text),
      respond:
        answer === 'stream'
          ? ({ continuation }) => chunkSseResponse(continuation.fullStream)
          : async ({ continuation }) => generateResponse(await summariseChunks(continuation)),
    });
  });
}
