import { Environment, parse } from '@marcbachmann/cel-js';
import picomatch from 'picomatch';
import { z } from 'zod';
import { conditionBudgetProblem } from './condition-check';

/**
 * The shape of approval policies kept as data: an ordered list of rules, the first matching one
 * decides. Validated with zod on every write (`PUT /api/policies`) and again when read back.
 */

/** A path into a call's args: `amount`, `order.id` (letters, digits, `_`, dots). */
const argPath = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, 'a field path such as amount or order.id');

/** A glob over agent or tool ids (picomatch syntax: `*`, `?`, `{a,b}`, `!(x)`). */
const glob = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((value) => {
    try {
      picomatch(value);
      return true;
    } catch {
      return false;
    }
  }, 'not a valid glob');

export const dataApproversSchema = z.union([
  z.enum(['requester', 'reviewer', 'four-eyes']),
  z.object({ quorum: z.number().int().min(2).max(10) }),
]);

export const deadlineSchema = z.object({
  minutes: z.number().int().min(1).max(60 * 24 * 30),
  action: z.enum(['decline', 'escalate']),
  reason: z.string().trim().min(1).max(500).optional(),
});

/**
 * History a condition can use: over the earlier calls of the same tool that executed or wait
 * (not declined ones) within `windowHours`, grouped `by` the same requester, thread, value of an
 * argument (`args.orderId`) or all calls. The condition then reads `history.sum` (earlier calls),
 * `history.count` and `history.total` (earlier calls plus this one).
 */
export const historySchema = z.object({
  sum: argPath,
  by: z.union([z.enum(['requester', 'thread', 'all']), z.string().regex(/^args\.[A-Za-z_][A-Za-z0-9_.]*$/, 'requester, thread, all or args.<field>')]),
  windowHours: z.number().positive().max(24 * 366),
});

export const outcomeSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('allow') }),
  z.object({ type: z.literal('require'), approvers: dataApproversSchema, deadline: deadlineSchema.optional() }),
  z.object({
    type: z.literal('classify'),
    threshold: z.number().min(0).max(1),
    /** Who decides when the classifier sends the call to a person. */
    approvers: dataApproversSchema.default('requester'),
    /** Ask the language model for a one-sentence rationale with structured output (stored and shown with the score). */
    rationale: z.boolean().optional(),
    /** Send the argument values too (the tool's sensitive fields masked); default: tool name and argument names only. */
    sendValues: z.boolean().optional(),
    deadline: deadlineSchema.optional(),
  }),
]);

/** Whether a CEL expression parses; the parser's message when it does not. */
export function celProblem(expression: string): string | null {
  try {
    parse(expression);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
}

export const ruleSchema = z.object({
  id: z.string().trim().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lower-case letters, digits and dashes'),
  name: z.string().trim().min(1).max(120),
  /** Glob over the agent id (the agent that makes the call, also under a supervisor). */
  agent: glob.default('*'),
  /** Glob over the tool id. */
  tool: glob,
  /** CEL over `args`, `agent`, `tool`, `requester`, `context` and (with `history`) `history`. */
  condition: z
    .string()
    .trim()
    .max(2000)
    .optional()
    .transform((value) => (value ? value : undefined))
    .superRefine((value, ctx) => {
      const problem = value ? celProblem(value) : null;
      if (problem) ctx.addIssue({ code: 'custom', message: `condition does not parse: ${problem}` });
    }),
  history: historySchema.optional(),
  outcome: outcomeSchema,
});

/** The checks across the rules of one list: unique ids; a condition reading `history` needs a history setting. */
export function checkRuleList(rules: z.infer<typeof ruleSchema>[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    if (seen.has(rule.id)) ctx.addIssue({ code: 'custom', path: ['rules', index, 'id'], message: `duplicate rule id ${rule.id}` });
    seen.add(rule.id);
    if (/\bhistory\b/.test(rule.condition ?? '') && !rule.history) {
      ctx.addIssue({ code: 'custom', path: ['rules', index, 'history'], message: 'the condition reads history, so the rule needs a history setting' });
    }
  });
}

/**
 * The variables a condition sees (lib/policies/evaluate.ts), typed for CEL's checker: the argument and
 * context maps hold any JSON, so reading a field of them is `dyn` and checked when the call comes.
 */
function conditionEnvironment(): Environment {
  return new Environment()
    .registerVariable('args', 'map')
    .registerVariable('agent', 'string')
    .registerVariable('tool', 'string')
    .registerVariable('requester', 'string')
    .registerVariable('context', 'map')
    // Only with a history setting; `checkRuleList` says so when it is missing.
    .registerVariable('history', 'map');
}

/**
 * Why a condition cannot work whatever the call, or null: it does not type-check (`size(args) +
 * 'a'`, an unknown variable) or it gives something other than true or false (`size(args)`). Such a
 * rule would still fail closed when evaluated (the call waits for a person, with the error
 * recorded), but an admin saving it meant something else. A field of `args` or `context` is of
 * unknown type until a call comes, so `args.amount > 100` passes and is checked per call.
 */
export function conditionTypeProblem(condition: string): string | null {
  try {
    const checked = conditionEnvironment().check(condition);
    if (!checked.valid) return `condition does not type-check: ${checked.error?.message.split('\n')[0] ?? 'unknown error'}`;
    if (checked.type !== 'bool' && checked.type !== 'dyn') return `condition gives ${checked.type}, not true or false`;
    return null;
  } catch (error) {
    return `condition does not type-check: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
}

/**
 * The checks a list gets when it is saved, besides the schema's: each condition type-checks and
 * gives true or false (`conditionTypeProblem`) and stays within the evaluation limits
 * (`conditionBudgetProblem`: comprehensions nested at most 2 deep, at most 5 of them, `matches`
 * patterns RE2 accepts). Not applied to stored rules when read back, so a rule saved before these
 * checks keeps working as it did (within the evaluation budget, failing closed beyond it).
 */
export function typeCheckRuleList(rules: z.infer<typeof ruleSchema>[], ctx: z.RefinementCtx) {
  rules.forEach((rule, index) => {
    // One that does not parse already has its issue from `ruleSchema`.
    const problem = rule.condition && !celProblem(rule.condition) ? (conditionTypeProblem(rule.condition) ?? conditionBudgetProblem(rule.condition)) : null;
    if (problem) ctx.addIssue({ code: 'custom', path: ['rules', index, 'condition'], message: problem });
  });
}

/** The ordered rule list (at most 200 rules), as stored and read back. */
export const policiesSchema = z.object({ rules: z.array(ruleSchema).max(200) }).superRefine((value, ctx) => checkRuleList(value.rules, ctx));

/** The rule list as an admin saves it: the stored shape, and every condition type-checked. */
export const policiesWriteSchema = policiesSchema.superRefine((value, ctx) => typeCheckRuleList(value.rules, ctx));

export type PolicyRule = z.infer<typeof ruleSchema>;
export type PolicyRuleInput = z.input<typeof ruleSchema>;
export type Policies = z.infer<typeof policiesSchema>;

/** Whether a rule applies to the agent and tool by its globs (conditions are checked separately). */
export function ruleMatches(rule: Pick<PolicyRule, 'agent' | 'tool'>, agentId: string, toolName: string): boolean {
  return picomatch.isMatch(agentId, rule.agent) && picomatch.isMatch(toolName, rule.tool);
}
