import { describe, expect, it } from 'vitest';
import { policiesSchema, type PolicyRuleInput } from '@/lib/policies/rules';
import { draftFromRule, ruleFromDraft, ruleSummary, summariseChange } from './drafts';

const rules: PolicyRuleInput[] = [
  { id: 'a', name: 'Per order', agent: '*', tool: 'issue-refund', condition: 'history.total > 100', history: { sum: 'amount', by: 'args.orderId', windowHours: 24 }, outcome: { type: 'require', approvers: { quorum: 2 }, deadline: { minutes: 10, action: 'decline', reason: 'late' } } },
  { id: 'b', name: 'Mail', agent: 'ops-*', tool: 'send-email', outcome: { type: 'classify', threshold: 0.7, approvers: 'requester' } },
  { id: 'c', name: 'Lookups', agent: '*', tool: 'lookup-*', outcome: { type: 'allow' } },
];

describe('rule drafts', () => {
  it('a rule survives the round trip through the form unchanged', () => {
    for (const rule of rules) expect(ruleFromDraft(draftFromRule(rule))).toEqual(rule);
    expect(policiesSchema.safeParse({ rules: rules.map((rule) => ruleFromDraft(draftFromRule(rule))) }).success).toBe(true);
  });

  it('the classifier’s rationale and send-values switches survive a save from the form', () => {
    const rule: PolicyRuleInput = { id: 'd', name: 'Mail with reasons', agent: '*', tool: 'send-*', outcome: { type: 'classify', threshold: 0.5, approvers: 'reviewer', rationale: true, sendValues: true } };
    expect(ruleFromDraft(draftFromRule(rule))).toEqual(rule);
    expect(ruleFromDraft({ ...draftFromRule(rule), rationale: false, sendValues: false }).outcome).toEqual({ type: 'classify', threshold: 0.5, approvers: 'reviewer' });
  });

  it('numbers typed as text that are not numbers fail validation instead of saving', () => {
    const draft = { ...draftFromRule(rules[0]), quorum: 'two' };
    expect(policiesSchema.safeParse({ rules: [ruleFromDraft(draft)] }).success).toBe(false);
  });

  it('summarises a change by rule name', () => {
    const parsed = policiesSchema.parse({ rules }).rules;
    expect(summariseChange(null, parsed)).toBe('added Per order, Mail, Lookups');
    expect(summariseChange(parsed, [parsed[1], { ...parsed[0], name: 'Per order' , condition: 'history.total > 200' }])).toBe('changed Per order; removed Lookups');
    expect(summariseChange(parsed, [parsed[1], parsed[0], parsed[2]])).toBe('reordered');
  });

  it('says in one line what a rule does', () => {
    expect(rules.map((rule) => ruleSummary(draftFromRule(rule)))).toEqual([
      'issue-refund · history.total > 100 → 2 reviewers, decline after 10 min',
      'ops-* › send-email → classify (≥ 0.7: the requester)',
      'lookup-* → allow',
    ]);
  });

  it('states the whole deadline sequence: an escalation is followed by a decline after the same time again; a classify rule keeps its deadline', () => {
    const escalating: PolicyRuleInput = { id: 'e', name: 'Escalating', agent: '*', tool: 'delete-*', outcome: { type: 'require', approvers: 'reviewer', deadline: { minutes: 1, action: 'escalate' } } };
    expect(ruleSummary(draftFromRule(escalating))).toBe('delete-* → a reviewer, escalate to admins after 1 min, decline after 2 min');
    const classified: PolicyRuleInput = { ...rules[1], outcome: { type: 'classify', threshold: 0.7, approvers: 'requester', deadline: { minutes: 30, action: 'decline' } } };
    expect(ruleSummary(draftFromRule(classified))).toBe('ops-* › send-email → classify (≥ 0.7: the requester), decline after 30 min');
    const escalatedClassified: PolicyRuleInput = { ...rules[1], outcome: { type: 'classify', threshold: 0.7, approvers: 'requester', deadline: { minutes: 90, action: 'escalate' } } };
    expect(ruleSummary(draftFromRule(escalatedClassified))).toBe('ops-* › send-email → classify (≥ 0.7: the requester), escalate to admins after 90 min, decline after 180 min');
  });
});
