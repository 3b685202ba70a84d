import type { PolicyRule, PolicyRuleInput } from '@/lib/policies/rules';

/** A rule as the editor's form holds it: every field a string or a switch. */
export interface RuleDraft {
  /** React key, stable while the rule is moved. */
  key: string;
  id: string;
  name: string;
  agent: string;
  tool: string;
  condition: string;
  useHistory: boolean;
  historySum: string;
  historyBy: 'requester' | 'thread' | 'all' | 'args';
  historyByArg: string;
  historyHours: string;
  outcome: 'allow' | 'require' | 'classify';
  approvers: 'requester' | 'reviewer' | 'four-eyes' | 'quorum';
  quorum: string;
  threshold: string;
  /** classify: ask for a rationale with structured output. */
  rationale: boolean;
  /** classify: send argument values (sensitive fields masked). */
  sendValues: boolean;
  useDeadline: boolean;
  deadlineMinutes: string;
  deadlineAction: 'decline' | 'escalate';
  deadlineReason: string;
}

let keys = 0;

/** The form state of a stored rule. */
export function draftFromRule(rule: PolicyRuleInput | PolicyRule): RuleDraft {
  const outcome = rule.outcome;
  const approvers = outcome.type === 'allow' ? 'reviewer' : (outcome.approvers ?? 'requester');
  const deadline = outcome.type === 'allow' ? undefined : outcome.deadline;
  const by = rule.history?.by ?? 'requester';
  return {
    key: `rule-${++keys}`,
    id: rule.id,
    name: rule.name,
    agent: rule.agent ?? '*',
    tool: rule.tool,
    condition: rule.condition ?? '',
    useHistory: rule.history !== undefined,
    historySum: rule.history?.sum ?? 'amount',
    historyBy: by.startsWith('args.') ? 'args' : (by as RuleDraft['historyBy']),
    historyByArg: by.startsWith('args.') ? by.slice('args.'.length) : '',
    historyHours: String(rule.history?.windowHours ?? 24),
    outcome: outcome.type,
    approvers: typeof approvers === 'object' ? 'quorum' : approvers,
    quorum: String(typeof approvers === 'object' ? approvers.quorum : 2),
    threshold: String(outcome.type === 'classify' ? outcome.threshold : 0.7),
    rationale: outcome.type === 'classify' && outcome.rationale === true,
    sendValues: outcome.type === 'classify' && outcome.sendValues === true,
    useDeadline: deadline !== undefined,
    deadlineMinutes: String(deadline?.minutes ?? 60),
    deadlineAction: deadline?.action ?? 'decline',
    deadlineReason: deadline?.reason ?? '',
  };
}

/** The rule a form state stands for (validated by the caller with `policiesSchema`). */
export function ruleFromDraft(draft: RuleDraft): PolicyRuleInput {
  const approvers = draft.approvers === 'quorum' ? { quorum: Number(draft.quorum) } : draft.approvers;
  const deadline = draft.useDeadline
    ? { minutes: Number(draft.deadlineMinutes), action: draft.deadlineAction, ...(draft.deadlineReason.trim() ? { reason: draft.deadlineReason.trim() } : {}) }
    : undefined;
  const outcome: PolicyRuleInput['outcome'] =
    draft.outcome === 'allow'
      ? { type: 'allow' }
      : draft.outcome === 'require'
        ? { type: 'require', approvers, ...(deadline ? { deadline } : {}) }
        : {
            type: 'classify',
            threshold: Number(draft.threshold),
            approvers,
            ...(draft.rationale ? { rationale: true } : {}),
            ...(draft.sendValues ? { sendValues: true } : {}),
            ...(deadline ? { deadline } : {}),
          };
  return {
    id: draft.id.trim(),
    name: draft.name.trim(),
    agent: draft.agent.trim() || '*',
    tool: draft.tool.trim(),
    ...(draft.condition.trim() ? { condition: draft.condition.trim() } : {}),
    ...(draft.useHistory
      ? {
          history: {
            sum: draft.historySum.trim(),
            by: draft.historyBy === 'args' ? `args.${draft.historyByArg.trim()}` : draft.historyBy,
            windowHours: Number(draft.historyHours),
          },
        }
      : {}),
    outcome,
  };
}

/** One line saying what a version changed: "added Big refunds; changed Mail; removed Old". */
export function summariseChange(before: PolicyRule[] | null, after: PolicyRule[]): string {
  const old = new Map((before ?? []).map((rule) => [rule.id, rule]));
  const now = new Map(after.map((rule) => [rule.id, rule]));
  const parts: string[] = [];
  const added = after.filter((rule) => !old.has(rule.id)).map((rule) => rule.name);
  const removed = (before ?? []).filter((rule) => !now.has(rule.id)).map((rule) => rule.name);
  const changed = after.filter((rule) => old.has(rule.id) && JSON.stringify(old.get(rule.id)) !== JSON.stringify(rule)).map((rule) => rule.name);
  if (added.length) parts.push(`added ${added.join(', ')}`);
  if (changed.length) parts.push(`changed ${changed.join(', ')}`);
  if (removed.length) parts.push(`removed ${removed.join(', ')}`);
  const order = (list: PolicyRule[] | null) => (list ?? []).filter((rule) => old.has(rule.id) && now.has(rule.id)).map((rule) => rule.id).join();
  if (!parts.length && order(before) !== order(after)) parts.push('reordered');
  return parts.join('; ') || 'no change';
}

/**
 * What a rule's deadline does, step by step, as the deadline job acts on it (lib/jobs/deadlines.ts):
 * `decline after 60 min`; an escalation is followed by a decline after the same span again
 * (lib/agent/deadline.ts: the deadline is extended once), so `escalate to admins after 1 min,
 * decline after 2 min`. Minutes as typed; a value that is not a number is shown as it is.
 */
export function deadlineSequence(draft: Pick<RuleDraft, 'deadlineAction' | 'deadlineMinutes'>): string {
  if (draft.deadlineAction === 'decline') return `decline after ${draft.deadlineMinutes} min`;
  const minutes = Number(draft.deadlineMinutes);
  const declineAt = Number.isFinite(minutes) && draft.deadlineMinutes.trim() !== '' ? String(minutes * 2) : `twice ${draft.deadlineMinutes}`;
  return `escalate to admins after ${draft.deadlineMinutes} min, decline after ${declineAt} min`;
}

/** One line saying what a rule does: "issue-refund · args.amount > 1000 → 2 reviewers". */
export function ruleSummary(draft: RuleDraft): string {
  const who: Record<RuleDraft['approvers'], string> = {
    requester: 'the requester',
    reviewer: 'a reviewer',
    'four-eyes': 'four eyes',
    quorum: `${draft.quorum} reviewers`,
  };
  const then =
    draft.outcome === 'allow'
      ? 'allow'
      : `${draft.outcome === 'classify' ? `classify (≥ ${draft.threshold}: ${who[draft.approvers]})` : who[draft.approvers]}${draft.useDeadline ? `, ${deadlineSequence(draft)}` : ''}`;
  const scope = draft.agent.trim() && draft.agent.trim() !== '*' ? `${draft.agent.trim()} › ${draft.tool.trim()}` : draft.tool.trim();
  return `${scope}${draft.condition.trim() ? ` · ${draft.condition.trim()}` : ''} → ${then}`;
}
