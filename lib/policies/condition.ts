import { Environment, parse, type ASTNode } from '@marcbachmann/cel-js';
import { serialize } from '@marcbachmann/cel-js/serialize';
import vm from 'node:vm';
import { isNode, linearMatches, re2, type Node } from './condition-check';

/**
 * Evaluating a rule's CEL condition within a budget. The CEL library (@marcbachmann/cel-js) runs
 * `string.matches` with JavaScript's backtracking RegExp, although CEL specifies RE2: one pattern
 * such as `^(a+)+$` and an argument of 31 `a`s and a `!` blocked the whole server for 10.8 s. Here:
 * - `matches` runs on re2js (a pure-JavaScript port of RE2/J: linear in the input, no backreferences
 *   or lookaround, as CEL specifies); the condition is rewritten on its syntax tree so the library's
 *   own `matches` is never reached;
 * - a condition may nest comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) at most
 *   COMPREHENSION_LIMITS.depth deep and use at most COMPREHENSION_LIMITS.count of them (checked
 *   when a rule is saved: conditionBudgetProblem in ./condition-check.ts);
 * - an evaluation that runs longer than its budget (default EVALUATION_BUDGET_MS) is interrupted
 *   (Node's vm timeout terminates the synchronous evaluation) and reported as
 *   ConditionBudgetError, which the caller treats as a failing rule: the call waits for a person.
 */

/** How long one condition may evaluate by default, in ms (a plain comparison takes well under 1 ms). */
export const EVALUATION_BUDGET_MS = 100;

/** The name `matches` is evaluated under (registered in the evaluation environment below). */
const LINEAR_MATCHES = 'linearMatches';

/** Thrown when a condition did not finish within its budget. */
export class ConditionBudgetError extends Error {
  constructor(readonly budgetMs: number) {
    super(`it did not finish within ${budgetMs} ms`);
    this.name = 'ConditionBudgetError';
  }
}

/** The environment conditions are evaluated in: CEL's standard library, any variable, and `matches` on RE2. */
const evaluation = new Environment({ unlistedVariablesAreDyn: true }).registerFunction(`string.${LINEAR_MATCHES}(string): bool`, (text: string, pattern: string) =>
  linearMatches(text, pattern),
);

/**
 * A copy of the tree with every `x.matches(p)` calling the RE2 `matches` instead. A literal pattern
 * is compiled here, outside the evaluation's budget (RE2's first compile in a process takes tens of
 * ms); one that does not compile is left to fail when the condition is evaluated.
 */
function withLinearMatches(node: ASTNode): Node {
  const copy = (value: unknown): unknown => (isNode(value) ? withLinearMatches(value) : Array.isArray(value) ? value.map(copy) : value);
  if (node.op === 'value' || node.op === 'id') return { op: node.op, args: node.args };
  if (node.op === 'rcall') {
    const [name, receiver, args] = node.args;
    const pattern = args[0];
    if (name === 'matches' && pattern?.op === 'value' && typeof pattern.args === 'string') {
      try {
        re2(pattern.args);
      } catch {
        // Reported by the evaluation.
      }
    }
    return { op: 'rcall', args: [name === 'matches' ? LINEAR_MATCHES : name, copy(receiver), copy(args)] };
  }
  return { op: node.op, args: copy(node.args) };
}

const compiled = new Map<string, ReturnType<Environment['parse']>>();

/** The condition parsed for evaluation, `matches` rewritten (cached: 1,000 conditions). */
function compile(condition: string) {
  let found = compiled.get(condition);
  if (found) return found;
  found = evaluation.parse(serialize(withLinearMatches(parse(condition).ast) as ASTNode));
  if (compiled.size >= 1_000) compiled.delete(compiled.keys().next().value!);
  compiled.set(condition, found);
  return found;
}

// One context for every evaluation: the vm timeout needs a script to run in; the script calls back.
const sandbox = vm.createContext({ job: null as null | (() => unknown) });
const runJob = new vm.Script('job()');

/**
 * Evaluates a condition against the call's variables, synchronously, within `budgetMs`.
 * @param condition CEL source as stored in the rule
 * @param vars the variables (`args`, `agent`, `tool`, `requester`, `context`, `history`)
 * @param budgetMs wall-clock budget in ms (default EVALUATION_BUDGET_MS)
 * @returns what the condition gives (a boolean for a working rule)
 * @throws ConditionBudgetError over the budget; the CEL library's errors for parse or evaluation
 *   problems (a missing field, no such overload); an Error for an invalid or over-long pattern
 */
export function evaluateCondition(condition: string, vars: Record<string, unknown>, budgetMs: number = EVALUATION_BUDGET_MS): unknown {
  const evaluate = compile(condition);
  sandbox.job = () => evaluate(vars);
  try {
    return runJob.runInContext(sandbox, { timeout: Math.max(1, Math.round(budgetMs)) });
  } catch (error) {
    if ((error as { code?: string } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new ConditionBudgetError(budgetMs);
    throw error;
  } finally {
    sandbox.job = null;
  }
}

