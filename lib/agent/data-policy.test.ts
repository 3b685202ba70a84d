import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decideApproval } from './approval-decision';
import { combineApproval, type DataPolicySource, type DataPolicyVerdict } from './data-policy';
import { createTool } from './tool';

const rule = { id: 'r1', name: 'big refunds', version: 3, outcome: 'require' as const, condition: 'args.amount > 100', explanation: 'amount 250 > 100' };
const requireReviewer: DataPolicyVerdict = { outcome: 'require', version: 3, rule, approvers: 'four-eyes' };

describe('combineApproval: code and data policies are OR-ed, fail closed', () => {
  it('runs at once only when neither code nor data requires approval', () => {
    expect(combineApproval({ code: null, data: null, toolApprovers: 'requester' })).toBeNull();
    expect(combineApproval({ code: null, data: { outcome: 'none', version: 1 }, toolApprovers: 'requester' })).toBeNull();
    expect(combineApproval({ code: null, data: { outcome: 'allow', version: 1, rule: { ...rule, outcome: 'allow' } }, toolApprovers: 'reviewer' })).toBeNull();
  });

  it('a data rule saying allow cannot remove an approval code requires', () => {
    const out = combineApproval({
      code: { reason: 'tool', kind: 'always', toolName: 'delete-record' },
      data: { outcome: 'allow', version: 2, rule: { ...rule, outcome: 'allow' } },
      toolApprovers: 'requester',
    });
    expect(out).toMatchObject({ approvers: 'requester', code: { reason: 'tool' }, why: 'delete-record always needs approval: the requester or a reviewer may decide' });
  });

  it('states the real rule: the condition with its values and who decides', () => {
    const out = combineApproval({ code: null, data: requireReviewer, toolApprovers: 'requester' });
    expect(out).toMatchObject({ approvers: 'reviewer', version: 3, rule: { id: 'r1' }, why: 'amount 250 > 100: reviewer required, not the requester' });
  });

  it('takes the stricter approvers: data cannot loosen the tool’s reviewer-only rule', () => {
    const out = combineApproval({ code: null, data: { ...requireReviewer, approvers: 'requester' }, toolApprovers: 'reviewer' });
    expect(out?.approvers).toBe('reviewer');
  });

  it('a quorum needs reviewers and says how many', () => {
    const out = combineApproval({ code: null, data: { ...requireReviewer, approvers: { quorum: 2 } }, toolApprovers: 'requester' });
    expect(out).toMatchObject({ approvers: 'reviewer', quorum: 2 });
    expect(out?.why).toContain('2 different reviewers required, not the requester');
  });

  it('an erroring data rule requires a reviewer and records the error', () => {
    const out = combineApproval({ code: null, data: { outcome: 'require', version: 4, rule, approvers: 'requester', error: 'condition failed: No such key: amount' }, toolApprovers: 'requester' });
    expect(out).toMatchObject({ approvers: 'reviewer', error: 'condition failed: No such key: amount' });
    expect(out?.why).toContain('could not be evaluated (condition failed: No such key: amount)');
  });

  it('keeps the deadline of the rule that required approval', () => {
    const out = combineApproval({ code: null, data: { ...requireReviewer, deadline: { minutes: 10, action: 'decline' } }, toolApprovers: 'requester' });
    expect(out?.deadline).toEqual({ minutes: 10, action: 'decline' });
  });

  it('names both reasons when code and data both require approval', () => {
    const out = combineApproval({ code: { reason: 'tool', kind: 'function', toolName: 'issue-refund' }, data: requireReviewer, toolApprovers: 'reviewer' });
    expect(out?.why).toBe("amount 250 > 100; and issue-refund's own approval rule asked for these arguments: reviewer required, not the requester");
  });
});

describe('decideApproval: asks code and data, a failing data source requires approval', () => {
  const tool = createTool({ id: 'refund', description: 'r', inputSchema: z.object({ amount: z.number() }), execute: () => 1 });
  const call = { agentId: 'a', runId: 'r', toolCallId: 'c', threadId: 't', resourceId: 'u', requestedBy: 'u' };

  it('a throwing source means approval by a reviewer, with the error', async () => {
    const broken: DataPolicySource = { evaluate: async () => { throw new Error('database down'); } };
    const out = await decideApproval({ tool, args: { amount: 1 }, requestContext: {}, dataPolicy: broken, call });
    expect(out).toMatchObject({ approvers: 'reviewer', error: 'policy source failed: database down' });
  });

  it('a request function saying yes is recorded as a function, not as "always"', async () => {
    const out = await decideApproval({ tool, args: { amount: 1 }, requestContext: {}, requestPolicy: () => true, call });
    expect(out?.why).toBe("this request's approval rule asked for this call: the requester or a reviewer may decide");
  });

  it('a source verdict alone makes the call wait', async () => {
    const source: DataPolicySource = { evaluate: async () => requireReviewer };
    expect(await decideApproval({ tool, args: { amount: 250 }, requestContext: {}, dataPolicy: source, call })).toMatchObject({ approvers: 'reviewer' });
    const none: DataPolicySource = { evaluate: async () => ({ outcome: 'none', version: 1 }) };
    expect(await decideApproval({ tool, args: { amount: 250 }, requestContext: {}, dataPolicy: none, call })).toBeNull();
  });
});
