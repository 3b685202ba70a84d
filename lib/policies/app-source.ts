import 'server-only';
import { notifications } from '@/lib/store/listen';
import { prisma } from '@/lib/store/db';
import { env } from '@/lib/env';
import { resolveDecisionModel } from '@/lib/models/decision';
import { resolveModel } from '@/lib/models';
import { createClassifier } from './classify';
import { PrismaPolicySource } from './store';

const globalForPolicies = globalThis as unknown as { countersignPolicySource?: PrismaPolicySource };

/**
 * The process-wide data policy source the app's agents use. Its cached rule list is dropped on
 * every policy change announced over NOTIFY (any server), so a change applies to the next call;
 * should that connection be down, the cache still expires after 5 s. `classify` rules ask the
 * decision model of the environment's model selection (lib/models/decision.ts), and its language
 * model for rationales or where the provider has no decision model.
 */
export function appPolicySource(): PrismaPolicySource {
  if (!globalForPolicies.countersignPolicySource) {
    // Real providers also get the chat model: rationales (rules with `rationale: true`) and, for a
    // provider without a decision model (OpenAI-compatible servers), the scores themselves. The
    // offline scripted decision model gives its own rationale.
    const languageModel = env().model.provider === 'local' ? null : resolveModel();
    const classify = createClassifier({ model: resolveDecisionModel(), languageModel, timeoutMs: env().CLASSIFIER_TIMEOUT_MS });
    const source = new PrismaPolicySource(prisma(), { maxAgeMs: 5_000, classify });
    globalForPolicies.countersignPolicySource = source;
    void notifications()
      .subscribe('countersign_policies', () => source.invalidate())
      .catch((error) => console.error('[policies] cannot listen for changes; rules refresh every 5 s:', error instanceof Error ? error.message : error));
  }
  return globalForPolicies.countersignPolicySource;
}
