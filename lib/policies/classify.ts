import { experimental_decide, Experimental_DecisionRefusalError, generateText, Output, type LanguageModel } from 'ai';
import type { Experimental_DecisionModelV4, JSONObject, JSONValue } from '@ai-sdk/provider';
import { z } from 'zod';
import type { ClassificationRecord, DataPolicyCall } from '@/lib/agent/data-policy';
import { storablePreview, storableText } from '@/lib/agent/model-output';
import { MASK, redactArgs } from '@/lib/notify/redact';
import type { PolicyRule } from './rules';

/** The question the decision model answers (a boolean: it gives the probability of "true"). */
export const APPROVAL_QUESTION = {
  type: 'boolean',
  instructions: 'Does this tool call need human approval because it is destructive, irreversible, expensive, or handles sensitive data?',
} as const;

export type Classify = (rule: PolicyRule & { outcome: { type: 'classify' } }, call: DataPolicyCall, version: number) => Promise<ClassificationRecord>;

/** What the language-model adapter asks for with structured output: a score and, always, a reason. */
export const classificationSchema = z.object({
  probability: z.number().min(0).max(1).describe('Probability (0 to 1) that this tool call needs human approval.'),
  rationale: z.string().describe('One short sentence: why.'),
});
/** What the rationale request asks for with structured output (the score comes from the decision model). */
export const rationaleSchema = z.object({ rationale: z.string().describe('One short sentence: why this call does or does not need human approval.') });

/** Longest rationale kept (characters). */
const RATIONALE_MAX = 300;

/**
 * What the model is told about a call: the tool name and the argument names — and, only when the
 * rule opts in (`sendValues`), the argument values with the tool's sensitive fields masked
 * (lib/notify/redact.ts, the same masking as emails).
 */
export function classificationState(rule: { outcome: { sendValues?: boolean } }, call: Pick<DataPolicyCall, 'toolName' | 'args' | 'sensitive'>): JSONObject {
  const argumentNames = Object.keys(typeof call.args === 'object' && call.args !== null ? call.args : {}).sort();
  return rule.outcome.sendValues
    ? { toolName: call.toolName, argumentNames, args: JSON.parse(JSON.stringify(redactArgs(call.args ?? null, call.sensitive) ?? null)) as JSONValue }
    : { toolName: call.toolName, argumentNames };
}

const promptOf = (state: unknown, ask: string) =>
  `${APPROVAL_QUESTION.instructions}\n${ask}\nThe tool call, as JSON (values may be masked as ${JSON.stringify(MASK)} or left out):\n${JSON.stringify(state)}`;

/**
 * A classifier for `classify` rules. It asks the decision model through the AI SDK's decision API
 * (`experimental_decide`, a boolean question answered with a probability); a provider without a
 * decision model is asked through the language-model adapter instead (`generateText` with
 * structured output, `classificationSchema`: a probability and a rationale). A rule with
 * `rationale: true` also gets a rationale from the language model with structured output
 * (`rationaleSchema`), asked at the same time as the decision (so it adds no latency of its own,
 * beyond the slower of the two); otherwise the rationale is what the decision model returned beside
 * its answer, if anything.
 *
 * It sends the tool name and the argument NAMES only; the values only when the rule says
 * `sendValues: true`, with the tool's sensitive fields masked (classificationState). A refusal, a
 * timeout, an error or a missing probability come back as a record with `score: null` and `error`,
 * which requires approval; a failed rationale request leaves the score and gives no rationale.
 * Answers with a score are cached per (tool, argument names — and the masked values when sent —,
 * rule id and version), so a changed rule asks again.
 *
 * @param options.model the decision model, or null when the provider has none
 * @param options.languageModel the language model for the adapter and rationales (null: none)
 * @param options.timeoutMs how long to wait for the model(s) (default 3,000 ms)
 * @param options.cacheSize answers kept (default 1,000; the oldest go first)
 */
export function createClassifier(options: {
  model: Experimental_DecisionModelV4 | null;
  languageModel?: LanguageModel | null;
  timeoutMs?: number;
  cacheSize?: number;
}): Classify {
  const timeoutMs = options.timeoutMs ?? 3_000;
  const cacheSize = options.cacheSize ?? 1_000;
  const cache = new Map<string, ClassificationRecord>();
  const languageModel = options.languageModel ?? null;
  const languageModelId = typeof languageModel === 'object' && languageModel !== null ? `${languageModel.provider}/${languageModel.modelId}` : String(languageModel);
  return async (rule, call, version) => {
    const state = classificationState(rule, call);
    const key = JSON.stringify([state, rule.id, version]);
    const hit = cache.get(key);
    if (hit) return { ...hit, cached: true };
    const wantsRationale = rule.outcome.rationale === true && languageModel !== null;
    const modelId = options.model ? `${options.model.provider}/${options.model.modelId}` : languageModel ? languageModelId : 'none';
    const base = { threshold: rule.outcome.threshold, modelId };
    if (!options.model && !languageModel) return { ...base, score: null, rationale: null, latencyMs: 0, error: 'this model provider has no decision model' };
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const abortSignal = AbortSignal.timeout(timeoutMs);
    try {
      let probability: number | undefined;
      let rationale: string | null;
      if (options.model) {
        const rationaleRequest = wantsRationale
          ? generateText({
              model: languageModel!,
              output: Output.object({ schema: rationaleSchema }),
              prompt: promptOf(state, 'Say in one short sentence why this call does or does not need approval.'),
              maxRetries: 0,
              abortSignal,
            }).then(
              (result) => result.output.rationale,
              () => null,
            )
          : Promise.resolve(null);
        const [result, asked] = await Promise.all([
          experimental_decide({
            model: options.model,
            state: [{ type: 'json', value: state }],
            questions: { requiresApproval: APPROVAL_QUESTION },
            maxRetries: 0,
            abortSignal,
          }),
          rationaleRequest,
        ]);
        probability = result.answers.requiresApproval?.probability;
        rationale = clip(asked) ?? rationaleOf(result.providerMetadata);
      } else {
        const result = await generateText({
          model: languageModel!,
          output: Output.object({ schema: classificationSchema }),
          prompt: promptOf(state, 'Answer with the probability that it needs approval and a one-sentence rationale.'),
          maxRetries: 0,
          abortSignal,
        });
        probability = result.output.probability;
        rationale = clip(result.output.rationale);
      }
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
        : abortSignal.aborted || (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
          ? `no answer within ${timeoutMs} ms`
          : `the model failed: ${storablePreview(error instanceof Error ? error.message.split('\n')[0] : String(error), RATIONALE_MAX)}`;
      return { ...base, score: null, rationale: null, latencyMs: latency(), error: reason };
    }
  };
}

/**
 * A model's rationale as it is stored: trimmed, cut to RATIONALE_MAX characters, NUL and lone
 * surrogates (also one the cut left) replaced, since it enters the pending call's jsonb.
 * @returns the text, or null when there is none
 */
const clip = (text: string | null | undefined) => (typeof text === 'string' && text.trim() ? storableText(text.trim().slice(0, RATIONALE_MAX)) : null);

/** A rationale the provider returned beside the answer (the scripted model does), else null. */
function rationaleOf(metadata: unknown): string | null {
  if (!metadata || typeof metadata !== 'object') return null;
  for (const value of Object.values(metadata as Record<string, unknown>)) {
    const rationale = (value as { rationale?: unknown } | null)?.rationale;
    if (typeof rationale === 'string' && rationale.trim()) return clip(rationale);
  }
  return null;
}
