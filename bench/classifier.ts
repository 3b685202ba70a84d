import { ScriptedDecisionModel } from '../lib/models/scripted-decision';
import { createClassifier } from '../lib/policies/classify';
import { policiesSchema } from '../lib/policies/rules';
import { summarise, type Summary } from './stats';

/** The classifier's added latency: one `classify` call per sample, in process. */
export interface ClassifierResult {
  /** ms per call that asks the model (a new tool name and argument names each time: no cache hit). */
  call: Summary | null;
  /** ms per call answered from the cache (same tool, argument names and rule version). */
  cached: Summary | null;
}

/**
 * Measures what a `classify` rule adds to a call on the offline scripted decision model, in process
 * (no database, no HTTP): the time of the classifier call itself, through the AI SDK's
 * `experimental_decide`, which is all the rule adds to the policy evaluation. `count` samples each,
 * uncached (a new tool name per sample) and cached.
 */
export async function classifierBench(count: number): Promise<ClassifierResult> {
  const classify = createClassifier({ model: new ScriptedDecisionModel() });
  const [rule] = policiesSchema.parse({ rules: [{ id: 'bench', name: 'Bench', tool: '*', outcome: { type: 'classify', threshold: 0.7 } }] }).rules as never[];
  const call = (toolName: string) => ({
    agentId: 'ops-agent', toolName, args: { orderId: 'ord-1', amount: 250 }, runId: 'r', toolCallId: 'c', threadId: 't', resourceId: 'u', requestedBy: 'u', requestContext: {},
  });
  const time = async (toolName: string) => {
    const started = performance.now();
    const record = await classify(rule, call(toolName), 1);
    if (record.score === null) throw new Error(`classifier bench: no score (${record.error})`);
    return performance.now() - started;
  };
  for (let i = 0; i < 5; i += 1) await time(`warm-up-${i}`);
  const uncached: number[] = [];
  const cached: number[] = [];
  for (let i = 0; i < count; i += 1) uncached.push(await time(`issue-refund-${i}`));
  for (let i = 0; i < count; i += 1) cached.push(await time('issue-refund-0'));
  return { call: summarise(uncached), cached: summarise(cached) };
}
