import { approvalVerdicts } from './approval-decision';
import type { PolicyEvaluation } from './data-policy';
import { AgentError } from './errors';
import { authorize } from './pending';
import { storedPolicy } from './run-loop';
import type { AgentSpec } from './spec';
import type { PendingCall, PolicyInputs } from './store';
import type { Actor, Tool } from './tool';

/**
 * An approval with edited arguments is decided against the rules of what it will run (behaviour §2
 * "Edit"). The edited call is asked the same approval decision as a new call of the run would be
 * (the request's switch as the run stored it, the agent's default, the tool's `requireApproval`, the
 * data rules with their classifier and history — run-loop.ts, approval-decision.ts), and what it
 * needs is compared with what this one approval gives: one eligible person's approval of a call that
 * waits under the rule it was shown with. Anything more is refused before the claim, so nothing runs
 * and nothing is recorded; the call keeps waiting as it was, and the reviewer may decline it (the
 * model can ask again) or approve it unedited.
 */

/** What an edit needed that the approval could not give. */
export type EditNeed = 'quorum' | 'reviewer' | 'rule';

/**
 * Checks that approving `row` with `args` (validated already) needs no more than `actor`'s one
 * approval.
 *
 * @param input.owner the agent that owns the call (its default policy and data policy source)
 * @param input.run what the call's run stored of its request (context, approval switch); absent: the
 *   request's switch counts as "always" (fail closed)
 * @throws AgentError EDIT_NEEDS_APPROVAL (409) with details `{ needs: 'quorum' | 'reviewer' | 'rule',
 *   rule: { id, name } | null, why }` — `quorum`: the edited call needs several reviewers' votes;
 *   `reviewer`: it needs a reviewer other than the requester and `actor` is not one; `rule`: a data
 *   rule the call as shown did not wait under (or one that could not be evaluated) makes the edit a
 *   reviewer-only call where the requester could decide the call as shown. A different rule that asks
 *   no more than the call as shown (e.g. a lowered refund now under a per-order limit, still four-eyes)
 *   is decided by this approval. `why` is the edited call's "why it waits".
 */
export async function checkEditedApproval(input: {
  owner: AgentSpec;
  tool: Tool;
  row: PendingCall;
  args: unknown;
  actor: Actor;
  run: PolicyInputs | undefined;
}): Promise<void> {
  const { owner, tool, row, args, actor, run } = input;
  const { evaluation } = await approvalVerdicts({
    tool,
    args,
    requestContext: run?.requestContext ?? {},
    requestPolicy: run ? storedPolicy(run.requestApproval) : true,
    agentDefault: owner.defaultOptions.requireToolApproval,
    dataPolicy: owner.dataPolicy,
    call: { agentId: owner.id, runId: row.runId, toolCallId: row.toolCallId, threadId: row.threadId, resourceId: row.resourceId, requestedBy: row.requestedBy, edit: true },
  });
  if (!evaluation) return;
  const rule = evaluation.rule ? { id: evaluation.rule.id, name: evaluation.rule.name } : null;
  const by = rule ? `rule “${rule.name}”` : (evaluation.code?.text ?? 'the approval policies');
  const refuse = (needs: EditNeed, what: string) =>
    new AgentError('EDIT_NEEDS_APPROVAL', `These changes need ${what} (${by}), more than this approval can give. Nothing was run; the call still waits as it was shown: approve it unchanged, or decline it with a reason.`, {
      needs,
      rule,
      why: evaluation.why,
    });
  if (evaluation.quorum && evaluation.quorum > 1) throw refuse('quorum', `${evaluation.quorum} different reviewers`);
  try {
    authorize({ ...row, approvers: evaluation.approvers }, actor);
  } catch (error) {
    if (error instanceof AgentError && error.code === 'FOUR_EYES') throw refuse('reviewer', 'a reviewer other than the person who asked for it');
    throw error;
  }
  // A rule the call as shown did not wait under, asking for a stricter decider than it did (a
  // reviewer where the requester could decide): whoever saw the call was asked a lighter question.
  const requiring = requiringRule(evaluation);
  if (requiring !== null && requiring !== requiringRule(row.policyEvaluation) && evaluation.approvers === 'reviewer' && row.approvers !== 'reviewer') {
    throw refuse('rule', 'a reviewer’s approval under a rule the call as shown did not wait under');
  }
}

/**
 * The data rule that made a call wait, by id ('error' when a rule or the policy source could not be
 * evaluated), or null when only code asked for approval: a `require` rule that matched, or a
 * `classify` rule whose score was missing or at or above its threshold.
 */
function requiringRule(evaluation: PolicyEvaluation | null): string | null {
  if (!evaluation) return null;
  if (evaluation.error !== undefined) return evaluation.rule?.id ?? 'error';
  const { rule, classification } = evaluation;
  if (!rule) return null;
  if (rule.outcome === 'require') return rule.id;
  if (rule.outcome === 'classify' && classification && (classification.score === null || classification.score >= classification.threshold)) return rule.id;
  return null;
}
