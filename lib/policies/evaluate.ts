import type { ClassificationRecord, DataPolicyCall, DataPolicyVerdict, MatchedRule } from '@/lib/agent/data-policy';
import { ConditionBudgetError, evaluateCondition } from './condition';
import { renderFieldReads } from './condition-check';
import { ruleMatches, type PolicyRule } from './rules';

/**
 * Evaluating data policy rules for one call, without a database: the history totals and the
 * classifier are passed in. Conditions are CEL, evaluated by a sandboxed interpreter
 * (@marcbachmann/cel-js: no access to JavaScript, no loops), never by `eval`, within a time budget
 * and with `matches` on RE2 (lib/policies/condition.ts).
 */

/** Earlier calls of the same tool a history rule counts: their summed field and how many. */
export interface HistoryTotals {
  sum: number;
  count: number;
}

/**
 * The first rule (in order) whose agent and tool globs match and whose condition holds decides.
 * Fail closed: a condition that does not parse, throws (e.g. a missing field) or is not a boolean
 * requires approval and records the error; so does a `classify` rule without a classifier, and a
 * condition that does not finish within `budgetMs` (the error says so; the server goes on answering).
 *
 * @param input.history totals of earlier calls for a rule with `history` (called only for such rules)
 * @param input.classify asks the decision model (rule outcome `classify`)
 * @param input.budgetMs how long one condition may evaluate, in ms (default EVALUATION_BUDGET_MS, 100)
 * @returns the verdict; `none` when no rule matched
 */
export async function evaluatePolicies(input: {
  rules: PolicyRule[];
  version: number;
  call: DataPolicyCall;
  history: (rule: PolicyRule) => Promise<HistoryTotals>;
  classify?: (rule: PolicyRule & { outcome: { type: 'classify' } }, call: DataPolicyCall, version: number) => Promise<ClassificationRecord>;
  budgetMs?: number;
}): Promise<DataPolicyVerdict> {
  const { rules, version, call } = input;
  for (const rule of rules) {
    if (!ruleMatches(rule, call.agentId, call.toolName)) continue;
    const matched: MatchedRule = { id: rule.id, name: rule.name, version, outcome: rule.outcome.type, ...(rule.condition ? { condition: rule.condition } : {}) };
    const approvers = rule.outcome.type === 'allow' ? undefined : rule.outcome.approvers;
    const failed = (error: string): DataPolicyVerdict => ({ outcome: 'require', version, rule: matched, approvers: approvers ?? 'reviewer', error });
    let vars: Record<string, unknown>;
    try {
      vars = await variables(rule, call, input.history);
    } catch (error) {
      return failed(`history could not be read: ${message(error)}`);
    }
    if (rule.condition) {
      let result: unknown;
      try {
        result = evaluateCondition(rule.condition, vars, input.budgetMs);
      } catch (error) {
        if (error instanceof ConditionBudgetError) return failed(`condition over its time budget: ${error.message}`);
        return failed(`condition failed: ${message(error)}`);
      }
      if (typeof result !== 'boolean') return failed(`condition gave ${typeof result}, not true or false`);
      if (!result) continue;
      matched.explanation = explainCondition(rule.condition, vars, rule);
    }
    const outcome = rule.outcome;
    if (outcome.type === 'allow') return { outcome: 'allow', version, rule: matched };
    if (outcome.type === 'require') {
      return { outcome: 'require', version, rule: matched, approvers: outcome.approvers, ...(outcome.deadline ? { deadline: outcome.deadline } : {}) };
    }
    if (!input.classify) return failed('no classifier is configured');
    let classification: ClassificationRecord;
    try {
      classification = await input.classify({ ...rule, outcome }, call, version);
    } catch (error) {
      return failed(`classifier failed: ${message(error)}`);
    }
    const needsPerson = classification.score === null || classification.error !== undefined || classification.score >= outcome.threshold;
    if (!needsPerson) return { outcome: 'allow', version, rule: matched, classification };
    return {
      outcome: 'require',
      version,
      rule: matched,
      approvers: outcome.approvers,
      classification,
      ...(outcome.deadline ? { deadline: outcome.deadline } : {}),
    };
  }
  return { outcome: 'none', version };
}

async function variables(rule: PolicyRule, call: DataPolicyCall, history: (rule: PolicyRule) => Promise<HistoryTotals>) {
  const vars: Record<string, unknown> = {
    args: call.args ?? {},
    agent: call.agentId,
    tool: call.toolName,
    requester: call.requestedBy,
    context: call.requestContext ?? {},
  };
  if (rule.history) {
    const totals = await history(rule);
    const own = numberAt(call.args, rule.history.sum);
    vars.history = { sum: totals.sum, count: totals.count, total: totals.sum + own };
  }
  return vars;
}

/** The number at `path` in `args` (0 when absent or not a JSON number, as the history SQL counts it). */
export function numberAt(args: unknown, path: string): number {
  const value = valueAt(args, path.split('.'));
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function valueAt(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/**
 * The condition with the call's values put in, as people read it: `args.amount > 100` becomes
 * `amount 250 > 100`; `history.total > 100` becomes `amount total 300 (24 h, same orderId, incl.
 * this call) > 100`. Method calls stay as written: `args.id.startsWith('rec-9')` becomes
 * `id "rec-9x".startsWith('rec-9')` (the fields are found on the parsed condition, not by pattern).
 */
export function explainCondition(condition: string, vars: Record<string, unknown>, rule?: Pick<PolicyRule, 'history'>): string {
  return renderFieldReads(condition, (root, path) => {
    const value = valueAt(vars[root], path);
    const shown = value === undefined ? 'missing' : JSON.stringify(value);
    if (root === 'history' && rule?.history) {
      const h = rule.history;
      const scope = h.by === 'all' ? 'all calls' : h.by === 'requester' ? 'same requester' : h.by === 'thread' ? 'same chat' : `same ${h.by.slice('args.'.length)}`;
      const field = path[0] === 'count' ? 'earlier calls' : path[0] === 'sum' ? `${h.sum} before this call` : `${h.sum} total`;
      return `${field} ${shown} (${h.windowHours} h, ${scope}${path[0] === 'total' ? ', incl. this call' : ''})`;
    }
    return `${path.join('.')} ${shown}`;
  });
}

const message = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error));
