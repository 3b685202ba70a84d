import type { Experimental_DecisionModelV4, Experimental_DecisionModelV4Result } from '@ai-sdk/provider';
import { Experimental_DecisionRefusalError } from 'ai';
import { describe, expect, it } from 'vitest';
import type { DataPolicyCall } from '@/lib/agent/data-policy';
import { combineApproval } from '@/lib/agent/data-policy';
import { ScriptedDecisionModel } from '@/lib/models/scripted-decision';
import { createClassifier } from './classify';
import { evaluatePolicies } from './evaluate';
import { policiesSchema } from './rules';

const call = (toolName: string, args: Record<string, unknown>): DataPolicyCall => ({
  agentId: 'ops-agent', toolName, args, runId: 'r', toolCallId: 'c', threadId: 't', resourceId: 'ada', requestedBy: 'ada', requestContext: {},
});
const [rule] = policiesSchema.parse({ rules: [{ id: 'mail', name: 'Mail', tool: '*', outcome: { type: 'classify', threshold: 0.7 } }] }).rules as never[];

/** A decision model that records what it was sent and answers with `answer`. */
function model(answer: (() => Promise<Experimental_DecisionModelV4Result>) | Experimental_DecisionModelV4Result) {
  const sent: unknown[] = [];
  const m: Experimental_DecisionModelV4 = {
    specificationVersion: 'v4', provider: 'test', modelId: 'decider', supportedQuestionTypes: ['boolean'],
    doDecide: async (options) => {
      sent.push(options.state);
      return typeof answer === 'function' ? answer() : answer;
    },
  };
  return { m, sent };
}
const probability = (p: number): Experimental_DecisionModelV4Result => ({ answers: { requiresApproval: { type: 'boolean', probability: p } }, warnings: [] });

describe('createClassifier (experimental_decide)', () => {
  it('sends the tool name and argument names only, never values', async () => {
    const { m, sent } = model(probability(0.8));
    const record = await createClassifier({ model: m })(rule, call('send-email', { to: 'secret@example.com', body: 'private' }), 1);
    expect(record).toMatchObject({ score: 0.8, threshold: 0.7, modelId: 'test/decider' });
    expect(JSON.stringify(sent)).not.toContain('secret@example.com');
    expect(sent).toEqual([[{ type: 'json', value: { toolName: 'send-email', argumentNames: ['body', 'to'] } }]]);
  });

  it('a refusal, an error, a missing probability and a timeout give no score and an error (approval required)', async () => {
    const refusing = model({ answers: { requiresApproval: { type: 'refusal' } }, warnings: [] }).m;
    const failing = model(async () => { throw new Error('503 busy'); }).m;
    const slow = model(() => new Promise((resolve) => setTimeout(() => resolve(probability(0.1)), 500))).m;
    const refused = await createClassifier({ model: refusing })(rule, call('x', {}), 1);
    expect(refused).toMatchObject({ score: null, error: 'the model refused to answer' });
    expect((await createClassifier({ model: failing })(rule, call('x', {}), 1)).error).toMatch(/^the model failed: .*503 busy/);
    expect(await createClassifier({ model: slow, timeoutMs: 100 })(rule, call('x', {}), 1)).toMatchObject({ score: null, error: 'no answer within 100 ms' });
    expect(await createClassifier({ model: null })(rule, call('x', {}), 1)).toMatchObject({ score: null, error: 'this model provider has no decision model' });
    expect(Experimental_DecisionRefusalError).toBeDefined();
    // Each of them makes the call wait, for a reviewer, with the error stated.
    const verdict = await evaluatePolicies({ rules: [rule], version: 1, call: call('x', {}), history: async () => ({ sum: 0, count: 0 }), classify: createClassifier({ model: refusing }) });
    expect(verdict.outcome).toBe('require');
    expect(combineApproval({ code: null, data: verdict, toolApprovers: 'requester' })?.why).toMatch(/^rule "Mail": the classifier gave no score \(the model refused to answer; classifier test\/decider, \d+ ms\), so approval is required/);
  });

  it('caches per tool, argument names and rule version', async () => {
    let calls = 0;
    const { m } = model(async () => { calls += 1; return probability(0.9); });
    const classify = createClassifier({ model: m });
    await classify(rule, call('send-email', { to: 'a', body: 'b' }), 1);
    const again = await classify(rule, call('send-email', { body: 'other', to: 'c' }), 1);
    expect(again.cached).toBe(true);
    expect(calls).toBe(1);
    await classify(rule, call('send-email', { to: 'a' }), 1);
    await classify(rule, call('send-email', { to: 'a', body: 'b' }), 2);
    expect(calls).toBe(3);
  });

  it('the scripted decision model scores destructive verbs and money high, reading low', async () => {
    const classify = createClassifier({ model: new ScriptedDecisionModel() });
    expect((await classify(rule, call('send-email', { to: 'a' }), 1)).score).toBe(0.9);
    expect((await classify(rule, call('delete-record', { id: 'a' }), 1)).score).toBe(0.9);
    expect((await classify(rule, call('update-order', { amount: 1 }), 1)).score).toBe(0.9);
    expect((await classify(rule, call('get-weather', { city: 'x' }), 1))).toMatchObject({ score: 0.1, rationale: '"get" suggests it only reads' });
    expect((await classify(rule, call('rename-thing', { title: 'x' }), 1)).score).toBe(0.5);
  });
});
