import type { Experimental_DecisionModelV4, Experimental_DecisionModelV4Result } from '@ai-sdk/provider';
import { Experimental_DecisionRefusalError } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { DataPolicyCall } from '@/lib/agent/data-policy';
import { combineApproval } from '@/lib/agent/data-policy';
import { ScriptedDecisionModel } from '@/lib/models/scripted-decision';
import { classificationSchema, createClassifier, rationaleSchema } from './classify';
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

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
/** A language model (the AI SDK's mock) answering every generate call with `json` as text; its calls are in `doGenerateCalls`. */
const languageModel = (json: unknown) =>
  new MockLanguageModelV4({
    provider: 'test',
    modelId: 'writer',
    doGenerate: async () => ({ content: [{ type: 'text', text: JSON.stringify(json) }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
  });
/** Everything a language model was sent, as one text (prompt and response format). */
const sentText = (lm: MockLanguageModelV4) => JSON.stringify(lm.doGenerateCalls.map((c) => ({ prompt: c.prompt, format: c.responseFormat })));
const withOutcome = (extra: Record<string, unknown>) =>
  policiesSchema.parse({ rules: [{ id: 'mail', name: 'Mail', tool: '*', outcome: { type: 'classify', threshold: 0.7, ...extra } }] }).rules[0] as never;

describe('classifier rationale and argument values', () => {
  it('a rule that wants a rationale gets one from the language model with structured output, beside the decision model’s score; names only by default', async () => {
    const { m, sent } = model(probability(0.8));
    const lm = languageModel({ rationale: 'Sending email reaches people outside; a person should check.' });
    const record = await createClassifier({ model: m, languageModel: lm })(withOutcome({ rationale: true }), call('send-email', { to: 'secret@example.com', body: 'private' }), 1);
    expect(record).toMatchObject({ score: 0.8, rationale: 'Sending email reaches people outside; a person should check.', modelId: 'test/decider' });
    expect(lm.doGenerateCalls).toHaveLength(1);
    // Structured output: a JSON response format with the rationale schema.
    expect(lm.doGenerateCalls[0].responseFormat).toMatchObject({ type: 'json', schema: { properties: { rationale: { type: 'string' } } } });
    const text = sentText(lm);
    expect(text).toContain('send-email');
    expect(text).toContain('[\\"body\\",\\"to\\"]');
    expect(text).not.toContain('secret@example.com');
    expect(text).not.toContain('private');
    expect(JSON.stringify(sent)).not.toContain('secret@example.com');
    // Without `rationale: true` the language model is not asked.
    const quiet = languageModel({ rationale: 'unused' });
    await createClassifier({ model: model(probability(0.8)).m, languageModel: quiet })(rule, call('send-email', { to: 'a' }), 1);
    expect(quiet.doGenerateCalls).toHaveLength(0);
    expect(rationaleSchema.safeParse({ rationale: 'x' }).success).toBe(true);
  });

  it('a rule that opts in sends argument values, with the tool’s sensitive fields masked', async () => {
    const { m, sent } = model(probability(0.9));
    const lm = languageModel({ rationale: 'Money leaves.' });
    const refund = { ...call('issue-refund', { orderId: 'ord-7', amount: 250, note: 'card 4111' }), sensitive: ['amount', 'note'] };
    await createClassifier({ model: m, languageModel: lm })(withOutcome({ rationale: true, sendValues: true }), refund, 1);
    expect(sent).toEqual([[{ type: 'json', value: { toolName: 'issue-refund', argumentNames: ['amount', 'note', 'orderId'], args: { orderId: 'ord-7', amount: '•••', note: '•••' } } }]]);
    const text = sentText(lm);
    expect(text).toContain('ord-7');
    expect(text).not.toContain('250');
    expect(text).not.toContain('4111');
    // A tool marked sensitive as a whole sends no value at all.
    const whole = model(probability(0.9));
    await createClassifier({ model: whole.m })(withOutcome({ sendValues: true }), { ...call('send-email', { to: 'x@y.z' }), sensitive: true }, 1);
    expect(JSON.stringify(whole.sent)).not.toContain('x@y.z');
  });

  it('a rationale or error text with NUL or a pair the cut splits is made storable (it enters the pending call’s jsonb)', async () => {
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    // 299 characters, then an emoji (a surrogate pair) at 299–300: the cut at 300 keeps only its first half.
    const long = `Risky\u0000 ${'x'.repeat(292)}\u{1F4B8} and more`;
    const lm = languageModel({ rationale: long });
    const record = await createClassifier({ model: model(probability(0.8)).m, languageModel: lm })(withOutcome({ rationale: true }), call('send-email', {}), 1);
    expect(record.rationale).toHaveLength(300);
    expect(record.rationale).toMatch(/^Risky\ufffd x+\ufffd$/);
    expect(record.rationale).not.toMatch(lone);
    const failing = model(async () => { throw new Error(`bad\u0000gateway \ud83d`); }).m;
    const failed = await createClassifier({ model: failing })(rule, call('x', {}), 1);
    expect(failed.error).toBe('the model failed: bad\ufffdgateway \ufffd');
  });

  it('a provider without a decision model is asked through the language-model adapter (probability and rationale, structured)', async () => {
    const lm = languageModel({ probability: 0.75, rationale: 'Deletes data.' });
    const record = await createClassifier({ model: null, languageModel: lm })(rule, call('delete-record', { id: 'rec-1' }), 1);
    expect(record).toMatchObject({ score: 0.75, rationale: 'Deletes data.', modelId: 'test/writer' });
    expect(sentText(lm)).not.toContain('rec-1');
    expect(lm.doGenerateCalls[0].responseFormat).toMatchObject({ type: 'json', schema: { required: expect.arrayContaining(['probability', 'rationale']) } });
    // An answer outside the schema (probability 7) is no score: approval required.
    const bad = await createClassifier({ model: null, languageModel: languageModel({ probability: 7, rationale: 'x' }) })(rule, call('delete-record', { id: 'r' }), 1);
    expect(bad).toMatchObject({ score: null });
    expect(bad.error).toMatch(/^the model failed/);
    expect(classificationSchema.safeParse({ probability: 0.5, rationale: 'y' }).success).toBe(true);
  });
});
