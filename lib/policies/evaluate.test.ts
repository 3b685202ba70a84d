import { describe, expect, it } from 'vitest';
import type { DataPolicyCall } from '@/lib/agent/data-policy';
import { evaluatePolicies, explainCondition } from './evaluate';
import { policiesSchema, policiesWriteSchema, type PolicyRuleInput } from './rules';

const call = (args: unknown, toolName = 'issue-refund', agentId = 'ops-agent'): DataPolicyCall => ({
  agentId, toolName, args, runId: 'run', toolCallId: 'c1', threadId: 't', resourceId: 'ada', requestedBy: 'ada', requestContext: {},
});
const rules = (list: PolicyRuleInput[]) => policiesSchema.parse({ rules: list }).rules;
const noHistory = async () => ({ sum: 0, count: 0 });

describe('evaluatePolicies', () => {
  const refunds = rules([
    { id: 'quorum', name: 'Very large refunds', tool: 'issue-refund', condition: 'args.amount > 1000', outcome: { type: 'require', approvers: { quorum: 2 } } },
    { id: 'big', name: 'Large refunds', tool: 'issue-*', condition: 'args.amount > 100', outcome: { type: 'require', approvers: 'four-eyes' } },
    { id: 'small', name: 'Small refunds', tool: 'issue-refund', outcome: { type: 'allow' } },
  ]);

  it('the first matching rule decides, with the condition explained by its values', async () => {
    expect(await evaluatePolicies({ rules: refunds, version: 7, call: call({ amount: 250 }), history: noHistory })).toMatchObject({
      outcome: 'require', version: 7, approvers: 'four-eyes', rule: { id: 'big', explanation: 'amount 250 > 100' },
    });
    expect(await evaluatePolicies({ rules: refunds, version: 7, call: call({ amount: 5000 }), history: noHistory })).toMatchObject({ rule: { id: 'quorum' }, approvers: { quorum: 2 } });
    expect(await evaluatePolicies({ rules: refunds, version: 7, call: call({ amount: 50 }), history: noHistory })).toMatchObject({ outcome: 'allow', rule: { id: 'small' } });
  });

  it('globs match agent and tool; no match means none', async () => {
    const scoped = rules([{ id: 'x', name: 'x', agent: 'data-*', tool: '{find,delete}-*', outcome: { type: 'require', approvers: 'reviewer' } }]);
    expect((await evaluatePolicies({ rules: scoped, version: 1, call: call({}, 'find-user', 'data-agent'), history: noHistory })).outcome).toBe('require');
    expect((await evaluatePolicies({ rules: scoped, version: 1, call: call({}, 'find-user', 'ops-agent'), history: noHistory })).outcome).toBe('none');
    expect((await evaluatePolicies({ rules: scoped, version: 1, call: call({}, 'send-email', 'data-agent'), history: noHistory })).outcome).toBe('none');
  });

  it('fails closed: a missing field, a non-boolean result or an unparsable stored condition require approval with the error', async () => {
    const missing = await evaluatePolicies({ rules: refunds, version: 1, call: call({ orderId: 'o' }), history: noHistory });
    expect(missing).toMatchObject({ outcome: 'require', rule: { id: 'quorum' } });
    expect(missing.error).toMatch(/condition failed: No such key: amount/);
    const notBool = [{ ...refunds[2], condition: 'args.amount + 1.0' }];
    expect((await evaluatePolicies({ rules: notBool, version: 1, call: call({ amount: 1 }), history: noHistory })).error).toMatch(/not true or false/);
    const broken = [{ ...refunds[2], condition: 'args.amount >' }];
    expect(await evaluatePolicies({ rules: broken, version: 1, call: call({ amount: 1 }), history: noHistory })).toMatchObject({ outcome: 'require', approvers: 'reviewer' });
  });

  it('a history condition sees the earlier calls plus this one', async () => {
    const perOrder = rules([{
      id: 'per-order', name: 'Refunds per order per day', tool: 'issue-refund', condition: 'history.total > 100',
      history: { sum: 'amount', by: 'args.orderId', windowHours: 24 }, outcome: { type: 'require', approvers: 'four-eyes' },
    }]);
    const under = await evaluatePolicies({ rules: perOrder, version: 1, call: call({ orderId: 'o1', amount: 100 }), history: async () => ({ sum: 0, count: 0 }) });
    expect(under.outcome).toBe('none');
    const over = await evaluatePolicies({ rules: perOrder, version: 1, call: call({ orderId: 'o1', amount: 100 }), history: async () => ({ sum: 200, count: 2 }) });
    expect(over).toMatchObject({ outcome: 'require', rule: { explanation: 'amount total 300 (24 h, same orderId, incl. this call) > 100' } });
    const failing = await evaluatePolicies({ rules: perOrder, version: 1, call: call({ amount: 1 }), history: async () => { throw new Error('db'); } });
    expect(failing.error).toBe('history could not be read: db');
  });

  it('classify: a score at or over the threshold, or no score, needs a person; without a classifier approval is required', async () => {
    const classified = rules([{ id: 'mail', name: 'Mail', tool: 'send-email', outcome: { type: 'classify', threshold: 0.7 } }]);
    const base = { modelId: 'scripted', latencyMs: 1, threshold: 0.7, rationale: null };
    const at = (score: number | null, error?: string) => async () => ({ ...base, score, ...(error ? { error } : {}) });
    const mail = call({ to: 'x' }, 'send-email');
    expect((await evaluatePolicies({ rules: classified, version: 1, call: mail, history: noHistory, classify: at(0.7) })).outcome).toBe('require');
    expect((await evaluatePolicies({ rules: classified, version: 1, call: mail, history: noHistory, classify: at(0.2) })).outcome).toBe('allow');
    expect((await evaluatePolicies({ rules: classified, version: 1, call: mail, history: noHistory, classify: at(null, 'refused') })).outcome).toBe('require');
    expect((await evaluatePolicies({ rules: classified, version: 1, call: mail, history: noHistory })).error).toBe('no classifier is configured');
  });

  it('explains method calls as written, with the field\'s value', () => {
    expect(explainCondition("args.id.startsWith('rec-9')", { args: { id: 'rec-9x' } })).toBe(`id "rec-9x".startsWith('rec-9')`);
    expect(explainCondition('args.items.exists(i, i.sku.matches("^X-")) && size(args.note) > 3', { args: { items: [{ sku: 'X-1' }], note: 'long' } })).toBe(
      'items [{"sku":"X-1"}].exists(i, i.sku.matches("^X-")) && size(note "long") > 3',
    );
  });

  it('explains strings and nested fields', () => {
    expect(explainCondition('args.to.domain == "x.com" && context.tenant == "t"', { args: { to: { domain: 'x.com' } }, context: {} })).toBe(
      'to.domain "x.com" == "x.com" && tenant missing == "t"',
    );
  });
});

describe('policiesSchema', () => {
  it('refuses unparsable conditions, duplicate ids, bad globs and history reads without history', () => {
    const bad = policiesSchema.safeParse({ rules: [
      { id: 'a', name: 'a', tool: 'x', condition: 'args.amount >', outcome: { type: 'allow' } },
      { id: 'a', name: 'b', tool: 'x', condition: 'history.total > 1', outcome: { type: 'allow' } },
      { id: 'c', name: 'c', tool: '', outcome: { type: 'require', approvers: { quorum: 1 } } },
    ] });
    expect(bad.success).toBe(false);
    const messages = bad.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(messages).toEqual(expect.arrayContaining([
      expect.stringMatching(/^rules\.0\.condition: condition does not parse/),
      'rules.1.id: duplicate rule id a',
      'rules.1.history: the condition reads history, so the rule needs a history setting',
      expect.stringMatching(/^rules\.2\.tool/),
      expect.stringMatching(/^rules\.2\.outcome\.approvers/),
    ]));
  });
});

describe('conditions evaluate within a budget (issue 30, item 7)', () => {
  const customers = rules([{ id: 'aaa', name: 'Odd customer ids', tool: 'lookup-*', condition: "args.customerId.matches('^(a+)+$')", outcome: { type: 'require', approvers: 'reviewer' } }]);

  it('matches runs on RE2: a catastrophic pattern on 31 a and a ! answers in well under 200 ms', async () => {
    const started = performance.now();
    const verdict = await evaluatePolicies({ rules: customers, version: 1, call: call({ customerId: `${'a'.repeat(31)}!` }, 'lookup-customer'), history: noHistory });
    expect(performance.now() - started).toBeLessThan(200);
    expect(verdict).toEqual({ outcome: 'none', version: 1 });
    // Ten times longer is still linear, not 2^310 steps.
    const longer = performance.now();
    await evaluatePolicies({ rules: customers, version: 1, call: call({ customerId: `${'a'.repeat(310)}!` }, 'lookup-customer'), history: noHistory });
    expect(performance.now() - longer).toBeLessThan(200);
    // CEL's partial match, as before.
    expect((await evaluatePolicies({ rules: customers, version: 1, call: call({ customerId: 'aaaa' }, 'lookup-customer'), history: noHistory })).outcome).toBe('require');
    const partial = rules([{ ...customers[0], condition: "args.customerId.matches('ec-[0-9]')" }]);
    expect((await evaluatePolicies({ rules: partial, version: 1, call: call({ customerId: 'rec-9' }, 'lookup-customer'), history: noHistory })).outcome).toBe('require');
  });

  it('a stored condition that runs over the budget fails closed: a reviewer decides, and the error says why', async () => {
    // Five nested all() over 20 items: 3.2 million steps (4.7 s per call before).
    const nested = rules([{
      id: 'nested', name: 'Nested', tool: 'lookup-*', outcome: { type: 'require', approvers: 'requester' },
      condition: 'args.xs.all(a, args.xs.all(b, args.xs.all(c, args.xs.all(d, args.xs.all(e, a + b + c + d + e >= 0)))))',
    }]);
    const started = performance.now();
    const verdict = await evaluatePolicies({ rules: nested, version: 3, call: call({ xs: Array.from({ length: 20 }, (_, i) => i) }, 'lookup-customer'), history: noHistory, budgetMs: 50 });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(verdict).toMatchObject({ outcome: 'require', rule: { id: 'nested' }, error: 'condition over its time budget: it did not finish within 50 ms' });
    // The next evaluation is not affected.
    expect((await evaluatePolicies({ rules: nested, version: 3, call: call({ xs: [1] }, 'lookup-customer'), history: noHistory })).error).toBeUndefined();
  });

  it('saving refuses comprehensions nested over 2 deep, more than 5 of them, and patterns RE2 does not accept', () => {
    const save = (condition: string) => policiesWriteSchema.safeParse({ rules: [{ id: 'r', name: 'r', tool: '*', condition, outcome: { type: 'allow' } }] });
    expect(save('args.xs.all(a, args.xs.exists(b, a == b))').success).toBe(true);
    const deep = save('args.xs.all(a, args.xs.all(b, args.xs.all(c, a + b + c >= 0)))');
    expect(deep.error?.issues).toEqual([expect.objectContaining({
      path: ['rules', 0, 'condition'],
      message: 'comprehensions (all, exists, exists_one, map, filter) are nested 3 deep; at most 2 are allowed, so that a rule evaluates within its budget',
    })]);
    const many = save(Array.from({ length: 6 }, (_, i) => `args.xs.exists(x${i}, x${i} == ${i})`).join(' || '));
    expect(many.error?.issues[0].message).toMatch(/has 6 comprehensions .* at most 5/);
    expect(save("args.id.matches('(?=a)b')").error?.issues[0].message).toMatch(/^matches: invalid regular expression \(RE2 syntax\)/);
  });
});
