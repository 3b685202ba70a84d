import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argumentTypeProblem, checkArgumentTypes, type JsonSchema, type ToolInputSchemas } from './arg-types';
import { policiesWriteSchema } from './rules';

const schema = (shape: z.ZodRawShape) => z.toJSONSchema(z.object(shape)) as JsonSchema;
const tools: ToolInputSchemas = {
  'issue-refund': schema({ orderId: z.string(), amount: z.number().positive() }),
  'delete-record': schema({ id: z.string() }),
  'send-email': schema({ to: z.string(), subject: z.string(), urgent: z.boolean().optional(), meta: z.record(z.string(), z.unknown()).optional() }),
  'find-user': schema({ query: z.union([z.string(), z.number()]), tier: z.enum(['gold', 'basic']).optional() }),
};

describe('conditions are compared with the input schema of the tools they apply to', () => {
  it('refuses a literal of another type than the field, naming the field, the tool and both types', () => {
    expect(argumentTypeProblem({ tool: 'issue-refund', condition: 'args.amount > "100"' }, tools)).toBe(
      "args.amount is a number in issue-refund's input, but the condition compares it with a string",
    );
    expect(argumentTypeProblem({ tool: 'issue-*', condition: 'args.orderId == 42 || args.amount > 1' }, tools)).toBe(
      "args.orderId is a string in issue-refund's input, but the condition compares it with a number",
    );
    expect(argumentTypeProblem({ tool: 'send-email', condition: '"yes" == args.urgent' }, tools)).toBe(
      "args.urgent is true or false in send-email's input, but the condition compares it with a string",
    );
    expect(argumentTypeProblem({ tool: 'find-user', condition: 'args.tier == 1' }, tools)).toMatch(/^args\.tier is a string in find-user's input/);
  });

  it('refuses a field none of the tools has', () => {
    expect(argumentTypeProblem({ tool: 'issue-refund', condition: 'args.amont > 100' }, tools)).toBe(
      "args.amont is not a field of issue-refund's input (its fields: orderId, amount)",
    );
    expect(argumentTypeProblem({ tool: '{issue-refund,delete-record}', condition: 'args.x.startsWith("a")' }, tools)).toBe(
      'args.x is not a field of the input of issue-refund, delete-record',
    );
  });

  it('accepts what fits: numbers of any CEL kind, unions, fields of some of the tools a glob matches, maps, other variables, unknown tools', () => {
    for (const [tool, condition] of [
      ['issue-refund', 'args.amount > 100'],
      ['issue-refund', 'args.amount >= 99.5 && args.amount != -1'],
      ['issue-refund', "args.orderId.startsWith('ord-') && size(args.orderId) > 3"],
      ['*', 'args.amount > 1000'],
      ['find-user', 'args.query == 7 || args.query == "ada"'],
      ['send-email', 'args.meta.tenant == 3 && has(args.urgent) && args.urgent == true'],
      ['send-email', "context.tenant == 1 && requester == 'user-ada'"],
      ['not-a-tool', 'args.amount > "100"'],
    ]) {
      expect(argumentTypeProblem({ tool, condition }, tools), `${tool}: ${condition}`).toBeNull();
    }
  });

  it('the saved list carries the problem on the rule\'s condition', () => {
    const rules = [{ id: 'r', name: 'r', tool: 'issue-refund', condition: 'args.amount > "100"', outcome: { type: 'allow' } }];
    expect(policiesWriteSchema.safeParse({ rules }).success).toBe(true);
    const checked = policiesWriteSchema.superRefine((value, ctx) => checkArgumentTypes(value.rules, tools, ctx)).safeParse({ rules });
    expect(checked.error?.issues).toEqual([expect.objectContaining({ path: ['rules', 0, 'condition'], message: expect.stringContaining('args.amount is a number') })]);
  });
});
