import 'server-only';
import { notifications } from '@/lib/store/listen';
import { prisma } from '@/lib/store/db';
import { env } from '@/lib/env';
import { resolveDecisionModel } from '@/lib/models/decision';
import { resolveModel } from '@/lib/models';
import { ApiError } from '@/lib/http/errors';
import { createClassifier } from './classify';
import type { PolicyRule } from './rules';
import { PrismaPolicySource, readPolicies, writePolicies, type PolicyWrite } from './store';

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

/**
 * `PUT /api/policies` for an admin: saves the rule list as the next version (writePolicies: the
 * version and its audit entry in one transaction) and drops this server's cached rules at once
 * (other servers drop theirs on the NOTIFY the save sends). Rules equal to those in force change
 * nothing (no version, no audit entry): the answer is the version in force, `changed: false`
 * (after the `baseVersion` check: based on an older version, such a save is still a 409).
 * @param admin the signed-in admin (recorded as who changed them)
 * @param change the rules, the version they were edited from, and an optional note
 * @returns the version in force after the save and whether the save made it
 * @throws ApiError 409 POLICY_CHANGED (someone saved other rules after `baseVersion`; details: the
 *   version in force), 422 UNKNOWN_POLICY_VERSION (`baseVersion` is newer than any saved version;
 *   details: the version in force)
 */
export async function savePolicies(
  admin: { id: string; role: string },
  change: { rules: PolicyRule[]; baseVersion?: number; note?: string },
): Promise<PolicyWrite> {
  const saved = await writePolicies(prisma(), { rules: change.rules, changedBy: admin.id, changedByRole: admin.role, note: change.note, baseVersion: change.baseVersion });
  if (saved === null) {
    const current = await readPolicies(prisma());
    if (change.baseVersion !== undefined && change.baseVersion > current.version) {
      throw new ApiError(422, 'UNKNOWN_POLICY_VERSION', `There is no version ${change.baseVersion} of the policies yet; the latest is ${current.version}.`, {
        version: current.version,
      });
    }
    throw new ApiError(409, 'POLICY_CHANGED', 'Someone saved the policies after you opened them. Reload to see their version, then apply your change again.', {
      version: current.version,
    });
  }
  if (saved.changed) appPolicySource().invalidate();
  return saved;
}
