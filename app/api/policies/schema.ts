import { z } from 'zod';
import { checkArgumentTypes, type ToolInputSchemas } from '@/lib/policies/arg-types';
import { checkRuleList, ruleSchema, typeCheckRuleList } from '@/lib/policies/rules';

/** The body's shape and the checks that need no tool schemas (see putPoliciesSchemaFor). */
export const putPoliciesSchema = z
  .object({
    rules: z.array(ruleSchema).max(200),
    baseVersion: z.number().int().min(0).optional(),
    note: z.string().trim().max(500).optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    checkRuleList(value.rules, ctx);
    typeCheckRuleList(value.rules, ctx);
  });

/**
 * `PUT /api/policies` body: the whole ordered rule list, the version it was edited from (the
 * write is refused when someone saved since), and an optional note kept with the change. With
 * `tools` (the app's tools' input schemas), each condition is also checked against the input of
 * the tools its rule applies to (`args.amount > "100"` on a numeric amount is refused, naming the field).
 */
export const putPoliciesSchemaFor = (tools: ToolInputSchemas) =>
  putPoliciesSchema.superRefine((value, ctx) => checkArgumentTypes(value.rules, tools, ctx));
