import { z } from 'zod';
import { checkRuleList, ruleSchema, typeCheckRuleList } from '@/lib/policies/rules';

/**
 * `PUT /api/policies` body: the whole ordered rule list, the version it was edited from (the
 * write is refused when someone saved since), and an optional note kept with the change.
 */
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
