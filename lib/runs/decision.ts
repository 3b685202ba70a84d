import 'server-only';
import type { Agent, AgentStreamResult } from '@/lib/agent/agent';
import type { Actor } from '@/lib/agent/tool';
import { readBodyText } from '@/lib/http/errors';
import { withIdempotency } from '@/lib/http/idempotency';
import { apiRateLimit, consumeApiRateLimit } from '@/lib/http/rate-limit';
import { assertRunAccess, assertThreadOwner, checkRunAccess, type RunAccessRow } from './access';
import { defaultAgentId, getAgent } from './agents';

/**
 * The one way a person's decision reaches the runtime, whichever door it comes through: the chat
 * body (`POST /api/chat` with `decision` / `resume`), the runs routes (`/api/runs/{runId}/tool-calls/
 * {toolCallId}/decision|resume`) and the agents routes (`approve-tool-call*`, `decline-tool-call*`,
 * `resume-stream`, `send-tool-approval`). Access (lib/runs/access.ts), the per-person rate limit,
 * and then the runtime's claim — which checks the fingerprint the decider saw, four-eyes and that
 * the call still waits (behaviour §2) — happen in the same order for all of them; the HTTP doors
 * add Idempotency-Key handling through `decisionResponse`.
 */

/** A decision on one pending call, as a request states it. */
export type DecisionCommand =
  | { kind: 'approve'; runId: string; toolCallId?: string; fingerprint?: string; args?: unknown }
  /** `withdraw`: the requester takes back their own request (declined "withdrawn by requester"). */
  | { kind: 'decline'; runId: string; toolCallId?: string; fingerprint?: string; reason?: string; withdraw?: boolean }
  | { kind: 'resume'; runId: string; toolCallId?: string; resumeData: unknown }
  /** Found by thread and resource alone (send-tool-approval): approves, declines or answers what waits there. */
  | {
      kind: 'by-thread';
      threadId: string;
      resourceId?: string;
      toolCallId?: string;
      approved: boolean;
      reason?: string;
      resumeData?: unknown;
      fingerprint?: string;
      args?: unknown;
      withdraw?: boolean;
    };

/** Who decides, through which door. */
export interface DecisionContext {
  actor: Actor;
  /** The agent the request addresses (agents routes); default: the run's (or thread's) own agent. */
  agent?: Agent;
  /** The run must belong to this thread (the chat body). */
  threadId?: string;
  /** The per-person limit this request counts against once its target is known reachable. */
  rateLimit?: 'agents' | 'runs';
  /**
   * The run's row, read already with the request's other reads (the chat body: `readChatTarget`),
   * or null when that read found no such run. Given, the run rule is applied to it without reading
   * the run again; not combined with `rateLimit`, which counts in the run's own read.
   */
  run?: RunAccessRow | null;
}

/** A decision accepted: the run and call it claimed, and the continuation (running in the background). */
export interface DecisionResult {
  runId: string;
  toolCallId?: string;
  continuation: AgentStreamResult;
}

/**
 * `approve` or `decline` from an `approved` flag, the shape the chat body and the runs route send.
 * A decline carries no edited args (they are ignored), an approval no reason.
 */
export function approvalCommand(input: {
  runId: string;
  toolCallId?: string;
  approved: boolean;
  reason?: string;
  fingerprint?: string;
  args?: unknown;
  withdraw?: boolean;
}): DecisionCommand {
  const { runId, toolCallId, fingerprint } = input;
  return input.approved
    ? { kind: 'approve', runId, toolCallId, fingerprint, args: input.args }
    : { kind: 'decline', runId, toolCallId, fingerprint, reason: input.reason, ...(input.withdraw ? { withdraw: true } : {}) };
}

/**
 * Applies a decision for `context.actor`: checks access (end users reach only their own runs, and
 * only their own threads; others' answer 404 as if unknown), counts the rate limit, then hands the
 * decision to the runtime.
 *
 * @throws ApiError 404 NO_SNAPSHOT_FOUND (run not reachable), 403 FORBIDDEN / 404 NOT_FOUND (thread,
 *   by-thread), 429 RATE_LIMITED; AgentError codes of the runtime: ALREADY_DECIDED, FOUR_EYES,
 *   FINGERPRINT_MISMATCH, WRONG_KIND, INVALID_ARGS, INVALID_RESUME_DATA, TOOL_CALL_NOT_SUSPENDED,
 *   AMBIGUOUS_TOOL_CALL…
 */
export async function decideToolCall(command: DecisionCommand, context: DecisionContext): Promise<DecisionResult> {
  const { actor } = context;
  if (command.kind === 'by-thread') {
    const thread = await assertThreadOwner({ threadId: command.threadId, resourceId: command.resourceId, actor });
    if (context.rateLimit) await consumeApiRateLimit(context.rateLimit, actor.id);
    const agent = context.agent ?? getAgent(thread?.agentId ?? defaultAgentId());
    const { runId, toolCallId, continuation } = await agent.sendToolApproval({ ...command, resourceId: command.resourceId ?? actor.id, actor });
    return { runId, toolCallId, continuation };
  }
  // The access check and the rate limit's count are one statement, or none when the run was read already.
  const run =
    context.run !== undefined && !context.rateLimit
      ? checkRunAccess(context.run, command.runId, actor, context.threadId)
      : await assertRunAccess(command.runId, actor, context.threadId, context.rateLimit && apiRateLimit(context.rateLimit, actor.id));
  const agent = context.agent ?? getAgent(run.agentId);
  const target = { runId: command.runId, toolCallId: command.toolCallId, actor };
  let continuation: AgentStreamResult;
  switch (command.kind) {
    case 'resume':
      continuation = await agent.resumeStream(command.resumeData, target);
      break;
    case 'approve':
      continuation = await agent.approveToolCall({ ...target, fingerprint: command.fingerprint, args: command.args });
      break;
    case 'decline':
      continuation = await agent.declineToolCall({ ...target, fingerprint: command.fingerprint, reason: command.reason, withdraw: command.withdraw });
      break;
  }
  return { runId: command.runId, toolCallId: command.toolCallId, continuation };
}

/**
 * A decision request over HTTP, for the runs and agents routes: the body is read, then — at most
 * once per `Idempotency-Key` and person (lib/http/idempotency.ts: a retry with the same key and
 * body gets the first response again, another body with the same key 422 IDEMPOTENCY_KEY_REUSED) —
 * parsed, decided (`decideToolCall`) and answered.
 *
 * @param input.agentId the agent named in the path (agents routes); an unknown one is 404 UNKNOWN_AGENT before the body is read
 * @param input.parse the body text → the command (throws ApiError 400 for a malformed body)
 * @param input.respond the accepted decision → the response (SSE, JSON…)
 */
export async function decisionResponse(input: {
  request: Request;
  actor: Actor;
  agentId?: string;
  rateLimit: 'agents' | 'runs';
  parse: (text: string) => DecisionCommand;
  respond: (result: DecisionResult) => Response | Promise<Response>;
}): Promise<Response> {
  const { request, actor } = input;
  const agent = input.agentId === undefined ? undefined : getAgent(input.agentId);
  const text = await readBodyText(request);
  return withIdempotency({ request, actorId: actor.id, body: text }, async () => {
    const command = input.parse(text);
    return input.respond(await decideToolCall(command, { actor, agent, rateLimit: input.rateLimit }));
  });
}
