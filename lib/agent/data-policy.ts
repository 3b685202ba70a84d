import type { ApprovalReason } from './policy';
import type { Approvers, RequestContext, Sensitivity } from './tool';

/**
 * Approval policies kept as data (edited by admins, stored outside the code) as the runtime sees
 * them: a source it asks once per tool call, and how its verdict combines with the code's policies.
 * Source: behaviour §2 "Policies as data" (code and data policies are OR-ed, fail closed).
 */

/** Who may decide a call, as a data rule says it. `four-eyes` and `reviewer` both exclude the requester. */
export type DataApprovers = 'requester' | 'reviewer' | 'four-eyes' | { quorum: number };

/** What happens when nobody decided a pending call in time. */
export interface PolicyDeadline {
  /** Minutes from the moment the call started to wait. */
  minutes: number;
  action: 'decline' | 'escalate';
  /** The reason the model reads when the call is declined at its deadline. */
  reason?: string;
}

/** The call a data policy is asked about (values exactly as the tool received them). */
export interface DataPolicyCall {
  agentId: string;
  toolName: string;
  args: unknown;
  runId: string;
  toolCallId: string;
  threadId: string;
  resourceId: string;
  requestedBy: string;
  requestContext: RequestContext;
  /** The tool's sensitive argument fields (`createTool`'s `sensitive`): masked wherever values leave the app. */
  sensitive?: Sensitivity;
  /**
   * A reviewer's edit of this waiting call (edit-approval.ts): evaluated without being recorded, and
   * history totals leave out the call's own earlier record (the approval that runs the edit
   * replaces that record's args in its claim).
   */
  edit?: true;
}

/** A classifier's verdict on a call (rule outcome `classify`). */
export interface ClassificationRecord {
  /** Probability (0..1) that the call needs a person; null when the model gave none. */
  score: number | null;
  threshold: number;
  rationale: string | null;
  modelId: string;
  latencyMs: number;
  /** Why the score could not be used (refusal, timeout, error); approval is then required. */
  error?: string;
  cached?: boolean;
}

/** The data rule that decided (or failed to decide) a call. */
export interface MatchedRule {
  id: string;
  name: string;
  /** Version of the rule list the rule belongs to. */
  version: number;
  outcome: 'allow' | 'require' | 'classify';
  condition?: string;
  /** The condition with the call's values, e.g. `amount 250 > 100`. */
  explanation?: string;
}

/**
 * A data policy's answer for one call. `none`: no rule matched (the code alone decides);
 * `allow`: a rule adds no approval (code may still require one); `require`: approval required.
 * `error` set means a rule could not be evaluated and approval is required (fail closed).
 */
export interface DataPolicyVerdict {
  outcome: 'none' | 'allow' | 'require';
  version: number | null;
  rule?: MatchedRule;
  approvers?: DataApprovers;
  deadline?: PolicyDeadline;
  classification?: ClassificationRecord;
  error?: string;
}

/** Where the runtime gets data policies from (the Prisma-backed one lives outside the runtime). */
export interface DataPolicySource {
  /**
   * Evaluates the call against the rule list in force. Calls of one step are asked one after the
   * other, so a history condition sees its siblings; an implementation with history conditions
   * records the call atomically with its evaluation.
   * A thrown error is treated like a failing rule: approval required.
   */
  evaluate(call: DataPolicyCall): Promise<DataPolicyVerdict>;
}

/**
 * Why a pending call waits, stored with it and shown on the card, in the inbox and the audit.
 * `why` is the sentence people read; the rest is the record it was made from.
 */
export interface PolicyEvaluation {
  why: string;
  /** The code policy that required approval (null when none did). */
  code: { reason: ApprovalReason; text: string } | null;
  /** The data rule that matched (null when none did). */
  rule: MatchedRule | null;
  version: number | null;
  approvers: Approvers;
  /** Distinct reviewers whose approval is needed (absent: one decision). */
  quorum?: number;
  deadline?: PolicyDeadline;
  classification?: ClassificationRecord;
  /** The error of a rule or code policy that failed, which made approval required. */
  error?: string;
}

/** How a code policy's verdict is described. `kind` tells a constant `true` from a function. */
export interface CodeVerdict {
  reason: ApprovalReason;
  kind: 'always' | 'function';
  toolName: string;
  error?: string;
}

/** The code policy in words, e.g. "delete-record always needs approval". */
export function codeText(verdict: CodeVerdict): string {
  switch (verdict.reason) {
    case 'tool':
      return verdict.kind === 'always'
        ? `${verdict.toolName} always needs approval`
        : `${verdict.toolName}'s own approval rule asked for these arguments`;
    case 'request':
      return verdict.kind === 'always' ? 'this request asks for approval of every tool call' : "this request's approval rule asked for this call";
    case 'agent-default':
      return verdict.kind === 'always' ? 'this agent asks for approval of every tool call' : "this agent's approval rule asked for this call";
    case 'policy-error':
      return `an approval rule in code failed${verdict.error ? ` (${verdict.error})` : ''}, so approval is required`;
  }
}

const RANK: Record<Approvers, number> = { requester: 0, reviewer: 1 };

/** The `Approvers` the store enforces for a data rule's "who may decide". */
export function storedApprovers(approvers: DataApprovers): Approvers {
  return approvers === 'requester' ? 'requester' : 'reviewer';
}

/** Who may decide, in words: "reviewer required, not the requester", "2 reviewers required, …". */
export function whoText(approvers: Approvers, quorum?: number): string {
  if (quorum && quorum > 1) return `${quorum} different reviewers required, not the requester`;
  return approvers === 'reviewer' ? 'reviewer required, not the requester' : 'the requester or a reviewer may decide';
}

/**
 * Combines the code policies' verdict with the data policy's (fail closed, behaviour §2):
 * approval is required when code requires it OR the data rule requires it OR the data rule failed;
 * who may decide is the strictest of the tool's `approvers` and the data rule's; a failed data
 * rule needs a reviewer. Nothing in data can remove an approval code requires or loosen the tool's
 * approvers.
 *
 * @returns null when the call may run at once, else the evaluation to store with the pending call
 */
export function combineApproval(input: {
  code: CodeVerdict | null;
  data: DataPolicyVerdict | null;
  toolApprovers: Approvers;
}): PolicyEvaluation | null {
  const { code, data, toolApprovers } = input;
  const dataRequires = data !== null && (data.outcome === 'require' || data.error !== undefined);
  if (!code && !dataRequires) return null;
  let approvers: Approvers = toolApprovers;
  let quorum: number | undefined;
  if (data && dataRequires) {
    const wanted: Approvers = data.error !== undefined ? 'reviewer' : storedApprovers(data.approvers ?? 'requester');
    if (RANK[wanted] > RANK[approvers]) approvers = wanted;
    if (data.error === undefined && typeof data.approvers === 'object') quorum = data.approvers.quorum;
  }
  const codePart = code ? { reason: code.reason, text: codeText(code) } : null;
  const reasons: string[] = [];
  if (data && dataRequires) reasons.push(dataReasonText(data));
  if (codePart) reasons.push(codePart.text);
  const error = data?.error ?? code?.error;
  return {
    why: `${reasons.join('; and ')}: ${whoText(approvers, quorum)}`,
    code: codePart,
    rule: data?.rule ?? null,
    version: data?.version ?? null,
    approvers,
    ...(quorum ? { quorum } : {}),
    ...(data && dataRequires && data.deadline ? { deadline: data.deadline } : {}),
    ...(data?.classification ? { classification: data.classification } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

/** The data rule's part of "why it waits". */
function dataReasonText(data: DataPolicyVerdict): string {
  const name = data.rule ? `rule "${data.rule.name}"` : 'the approval policies';
  if (data.error !== undefined) return `${name} could not be evaluated (${data.error}), so approval is required`;
  const c = data.classification;
  if (c) {
    const by = `classifier ${c.modelId}, ${c.latencyMs} ms${c.cached ? ', cached' : ''}`;
    if (c.score === null) return `${name}: the classifier gave no score (${c.error ?? 'no probability'}; ${by}), so approval is required`;
    return `${name}: classifier score ${c.score.toFixed(2)} ≥ ${c.threshold}${c.rationale ? `, ${c.rationale}` : ''} (${by})`;
  }
  if (data.rule?.explanation) return data.rule.explanation;
  return `${name} requires approval`;
}

