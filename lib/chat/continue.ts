import 'server-only';
import { createUIMessageStreamResponse } from 'ai';
import type { AgentStreamResult } from '@/lib/agent/agent';
import type { Actor } from '@/lib/agent/tool';
import { getAgent } from '@/lib/demo/agents';
import { consumeApiRateLimit } from '@/lib/http/rate-limit';
import { assertRunAccess } from './access';
import { uiChunkTransform } from '@/lib/ui-stream/map';

/** A decision or an answer for one pending call, as the HTTP layer receives it. */
export type Continuation =
  | { type: 'decision'; runId: string; toolCallId: string; approved: boolean; reason?: string; fingerprint?: string; args?: unknown }
  | { type: 'resume'; runId: string; toolCallId: string; resumeData: unknown };

/**
 * Applies a decision or resume on behalf of `actor` and returns the run's continuation.
 * End users may only act on their own runs (others' runs answer 404, as if unknown).
 *
 * @param input.rateLimit the route group whose per-person limit this request counts against, once
 *   the run is known to be the actor's to reach (an unknown run changes nothing)
 * @throws ApiError 404 NO_SNAPSHOT_FOUND, 429 RATE_LIMITED; AgentError codes of the runtime (409, 403, 422…)
 */
export async function continueRun(
  input: Continuation & { actor: Actor; threadId?: string; rateLimit?: 'runs' },
): Promise<AgentStreamResult> {
  const run = await assertRunAccess(input.runId, input.actor, input.threadId);
  if (input.rateLimit) await consumeApiRateLimit(input.rateLimit, input.actor.id);
  const agent = getAgent(run.agentId);
  const target = { runId: input.runId, toolCallId: input.toolCallId, actor: input.actor };
  if (input.type === 'resume') return agent.resumeStream(input.resumeData, target);
  if (input.approved) return agent.approveToolCall({ ...target, fingerprint: input.fingerprint, args: input.args });
  return agent.declineToolCall({ ...target, fingerprint: input.fingerprint, reason: input.reason });
}

/** The run's chunks as an AI SDK UI message stream response (SSE) that `useChat` reads. */
export function uiStreamResponse(result: AgentStreamResult): Response {
  return createUIMessageStreamResponse({ stream: result.fullStream.pipeThrough(uiChunkTransform(result.runId)) });
}
