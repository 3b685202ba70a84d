import type { Tool, RequestContext } from './tool';

/** Request-level approval switch: a boolean or a (possibly async) function of the call. */
export type RequestApprovalPolicy =
  | boolean
  | ((call: { toolName: string; args: unknown; requestContext: RequestContext }) => boolean | Promise<boolean>);

/** How long a policy function may take before approval is required anyway, in ms. */
export const POLICY_TIMEOUT_MS = 2_000;

/** Why a call needs a person, stored with the pending call so a resume never re-evaluates it. */
export type ApprovalReason = 'request' | 'agent-default' | 'tool' | 'policy-error';

async function evaluate(policy: () => boolean | Promise<boolean>): Promise<boolean | 'error'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<'error'>((resolve) => {
      timer = setTimeout(() => resolve('error'), POLICY_TIMEOUT_MS);
    });
    const verdict = await Promise.race([Promise.resolve().then(policy), timeout]);
    return verdict === 'error' ? 'error' : Boolean(verdict);
  } catch {
    return 'error';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Decides whether one tool call must wait for approval. Source: behaviour §2, its first points:
 * the request's policy, the agent's default and the tool's `requireApproval` are OR-ed; a tool's
 * function may only add approval; a policy that throws or takes longer than POLICY_TIMEOUT_MS
 * requires approval.
 *
 * @returns the reason approval is required, or null when the call may run at once
 */
export async function approvalReason(input: {
  tool: Tool;
  args: unknown;
  requestContext: RequestContext;
  requestPolicy?: RequestApprovalPolicy;
  agentDefault?: RequestApprovalPolicy;
}): Promise<ApprovalReason | null> {
  const { tool, args, requestContext } = input;
  const call = { toolName: tool.id, args, requestContext };
  for (const [policy, reason] of [
    [input.requestPolicy, 'request'],
    [input.agentDefault, 'agent-default'],
  ] as const) {
    if (policy === undefined || policy === false) continue;
    if (policy === true) return reason;
    const verdict = await evaluate(() => policy(call));
    if (verdict === 'error') return 'policy-error';
    if (verdict) return reason;
  }
  const toolPolicy = tool.requireApproval;
  if (toolPolicy === true) return 'tool';
  if (typeof toolPolicy === 'function') {
    const verdict = await evaluate(() => toolPolicy(args, { requestContext }));
    if (verdict === 'error') return 'policy-error';
    if (verdict) return 'tool';
  }
  return null;
}
