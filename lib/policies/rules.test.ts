import { describe, expect, it } from 'vitest';
import { DEMO_POLICIES } from '../demo/policies';
import { conditionTypeProblem, policiesSchema, policiesWriteSchema } from './rules';

describe('conditions are type-checked when saved', () => {
  it('accepts the demo rules and conditions over any field of args, context or history', () => {
    expect(policiesWriteSchema.safeParse({ rules: DEMO_POLICIES }).success).toBe(true);
    for (const condition of ['args.amount > 100', "requester == 'user-ada' && tool.startsWith('issue')", 'context.tenant == "acme"', 'history.total > 100', 'args.urgent']) {
      expect(conditionTypeProblem(condition), condition).toBeNull();
    }
  });

  it('refuses a condition that cannot type-check or cannot give true or false, naming why', () => {
    expect(conditionTypeProblem("size(args) + 'a'")).toBe('condition does not type-check: no such overload: int + string');
    expect(conditionTypeProblem('size(args)')).toBe('condition gives int, not true or false');
    expect(conditionTypeProblem('amount > 100')).toMatch(/^condition does not type-check: .*amount/);
  });

  it('applies to saving only: a stored rule that does not type-check still reads back as it was', () => {
    const rules = [{ id: 'odd', name: 'Odd', tool: '*', condition: 'size(args)', outcome: { type: 'require', approvers: 'reviewer' } }];
    expect(policiesSchema.safeParse({ rules }).success).toBe(true);
    const saved = policiesWriteSchema.safeParse({ rules });
    expect(saved.success).toBe(false);
    expect(saved.error?.issues).toEqual([expect.objectContaining({ path: ['rules', 0, 'condition'], message: 'condition gives int, not true or false' })]);
    // A condition that does not parse gets that one issue, not a second about its types.
    const unparsed = policiesWriteSchema.safeParse({ rules: [{ ...rules[0], condition: 'args.amount >' }] });
    expect(unparsed.error?.issues.map((issue) => issue.message)).toEqual([expect.stringMatching(/^condition does not parse/)]);
  });
});
