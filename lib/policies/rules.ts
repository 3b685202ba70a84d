import { parse } from '@marcbachmann/cel-js';
import picomatch from 'picomatch';
import { z } from 'zod';

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

/** The ordered rule list (at most 200 rules). */
export const policiesSchema = z.object({ rules: z.array(ruleSchema).max(200) }).superRefine((value, ctx) => checkRuleList(value.rules, ctx));

export type PolicyRule = z.infer<typeof ruleSchema>;
export type PolicyRuleInput = z.input<typeof ruleSchema>;
export type Policies = z.infer<typeof policiesSchema>;

/** Whether a rule applies to the agent and tool by its globs (conditions are checked separately). */
export function ruleMatches(rule: Pick<PolicyRule, 'agent' | 'tool'>, agentId: string, toolName: string): boolean {
  return picomatch.isMatch(agentId, rule.agent) && picomatch.isMatch(toolName, rule.tool);
}
