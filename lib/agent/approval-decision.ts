import { combineApproval, type CodeVerdict, type DataPolicyCall, type DataPolicySource, type DataPolicyVerdict, type PolicyEvaluation } from './data-policy';
import { approvalReason, type RequestApprovalPolicy } from './policy';
import type { RequestContext, Tool } from './tool';

/** What decideApproval asks about one call (the call's own fields of a data policy question in `call`). */
export interface ApprovalQuestion {
  tool: Tool;
  args: unknown;
  requestContext: RequestContext;
  requestPolicy?: RequestApprovalPolicy;
  agentDefault?: RequestApprovalPolicy;
  dataPolicy?: DataPolicySource;
  call: Omit<DataPolicyCall, 'toolName' | 'args' | 'requestContext'>;
}

/**
 * Whether one tool call waits for a person, and why: the code policies (request, agent default,
 * tool — policy.ts) and the data policy (when the agent has a source) are both asked and combined
 * fail-closed (data-policy.ts `combineApproval`). A data source that throws counts as a failing
 * rule: approval required, the error recorded. Source: behaviour §2, its first points.
 *
 * @returns null when the call may run at once, else the evaluation to store with the pending call
 */
export async function decideApproval(input: ApprovalQuestion): Promise<PolicyEvaluation | null> {
  return (await approvalVerdicts(input)).evaluation;
}

/**
 * decideApproval with the verdicts it combined: the code policies' (null: none asked for approval)
 * and the data policy's (null: the agent has no data source).
 */
export async function approvalVerdicts(input: ApprovalQuestion): Promise<{ evaluation: PolicyEvaluation | null; code: CodeVerdict | null; data: DataPolicyVerdict | null }> {
  const reason = await approvalReason(input);
  const code: CodeVerdict | null = reason
    ? { reason, kind: constantPolicy(reason, input) ? 'always' : 'function', toolName: input.tool.id }
    : null;
  let data: DataPolicyVerdict | null = null;
  if (input.dataPolicy) {
    try {
      data = await input.dataPolicy.evaluate({ ...input.call, toolName: input.tool.id, args: input.args, requestContext: input.requestContext, sensitive: input.tool.sensitive });
    } catch (error) {
      data = { outcome: 'require', version: null, error: `policy source failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  return { evaluation: combineApproval({ code, data, toolApprovers: input.tool.approvers }), code, data };
}

/** Whether the policy that gave `reason` is the constant `true` (rather than a function). */
function constantPolicy(
  reason: NonNullable<Awaited<ReturnType<typeof approvalReason>>>,
  input: { tool: Tool; requestPolicy?: RequestApprovalPolicy; agentDefault?: RequestApprovalPolicy },
): boolean {
  if (reason === 'tool') return input.tool.requireApproval === true;
  if (reason === 'request') return input.requestPolicy === true;
  if (reason === 'agent-default') return input.agentDefault === true;
  return false;
}
