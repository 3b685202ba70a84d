import { experimental_decide, Experimental_DecisionRefusalError } from 'ai';
import type { Experimental_DecisionModelV4 } from '@ai-sdk/provider';
import type { ClassificationRecord, DataPolicyCall } from '@/lib/agent/data-policy';
import type { PolicyRule } from './rules';

/** The question the decision model answers (a boolean: it gives the probability of "true"). */
export const APPROVAL_QUESTION = {
  type: 'boolean',
  instructions: 'Does this tool call need human approval because it is destructive, irreversible, expensive, or handles sensitive data?',
} as const;

export type Classify = (rule: PolicyRule & { outcome: { type: 'classify' } }, call: DataPolicyCall, version: number) => Promise<ClassificationRecord>;

/**
 * A classifier for `classify` rules through the AI SDK's decision API (`experimental_decide`). It
 * sends the tool name and the argument NAMES only, never their values. A refusal, a timeout, an
 * error or a missing probability come back as a record with `score: null` and `error`, which
 * requires approval. Answers with a score are cached per (tool, argument names, rule id and
 * version), so a changed rule asks again.
 *
 * @param options.model the decision model, or null when the provider has none (every call: error)
 * @param options.timeoutMs how long to wait for the model (default 3,000 ms)
 * @param options.cacheSize answers kept (default 1,000; the oldest go first)
 */
export function createClassifier(options: { model: Experimental_DecisionModelV4 | null; timeoutMs?: number; cacheSize?: number }): Classify {
  const timeoutMs = options.timeoutMs ?? 3_000;
  const cacheSize = options.cacheSize ?? 1_000;
  const cache = new Map<string, ClassificationRecord>();
  return async (rule, call, version) => {
    const argumentNames = Object.keys(typeof call.args === 'object' && call.args !== null ? call.args : {}).sort();
    const key = JSON.stringify([call.toolName, argumentNames, rule.id, version]);
    const hit = cache.get(key);
    if (hit) return { ...hit, cached: true };
    const base = { threshold: rule.outcome.threshold, modelId: options.model ? `${options.model.provider}/${options.model.modelId}` : 'none' };
    if (!options.model) return { ...base, score: null, rationale: null, latencyMs: 0, error: 'this model provider has no decision model' };
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    try {
      const result = await experimental_decide({
        model: options.model,
        state: [{ type: 'json', value: { toolName: call.toolName, argumentNames } }],
        questions: { requiresApproval: APPROVAL_QUESTION },
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(timeoutMs),
      });
      const probability = result.answers.requiresApproval?.probability;
      const rationale = rationaleOf(result.providerMetadata);
      if (typeof probability !== 'number' || !Number.isFinite(probability)) {
        return { ...base, score: null, rationale, latencyMs: latency(), error: 'the model gave no probability' };
      }
      const record: ClassificationRecord = { ...base, score: probability, rationale, latencyMs: latency() };
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
      cache.set(key, record);
      return record;
    } catch (error) {
      const reason = Experimental_DecisionRefusalError.isInstance(error)
        ? 'the model refused to answer'
        : error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
          ? `no answer within ${timeoutMs} ms`
          : `the model failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      return { ...base, score: null, rationale: null, latencyMs: latency(), error: reason };
    }
  };
}

/** A rationale the provider returned beside the answer (the scripted model does), else null. */
function rationaleOf(metadata: unknown): string | null {
  if (!metadata || typeof metadata !== 'object') return null;
  for (const value of Object.values(metadata as Record<string, unknown>)) {
    const rationale = (value as { rationale?: unknown } | null)?.rationale;
    if (typeof rationale === 'string' && rationale.trim()) return rationale.trim().slice(0, 300);
  }
  return null;
}
