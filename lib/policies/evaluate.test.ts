import { describe, expect, it } from 'vitest';
import type { DataPolicyCall } from '@/lib/agent/data-policy';
import { evaluatePolicies, explainCondition } from './evaluate';
import { policiesSchema, type PolicyRuleInput } from './rules';

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
