import { policyText, revealBidi } from '@/lib/present/describe';
import type { Tool } from '@/lib/agent/tool';

/** What a waiting call's stored evaluation says about why it waits (pending_tool_calls.policy_evaluation). */
export interface WhyFacts {
  /** The policy rule's own reason (its `why`), as the inbox shows it: it may quote argument values. */
  why: string | null;
  /** The name of the data rule that matched, when one did (an admin's words, never the call's values). */
  ruleName?: string | null;
  /** The code policy that asked, in words (codeText, lib/agent/data-policy.ts), and its reason code. */
  codeText?: string | null;
  codeReason?: string | null;
  /** The call's policy (`requester`, `reviewer`, …), the last resort. */
  policy: string;
}

/** Whether a tool marks any argument value sensitive (`true`, or a list of field names). */
export const hidesValues = (sensitive: Tool['sensitive']) => sensitive === true || (Array.isArray(sensitive) && sensitive.length > 0);

/**
 * Why a call waits, in words that cannot hold an argument value, for text that leaves the app with
 * sensitive values masked (reviewer mail, webhooks). A reason such as "amount 271.83 > 100" quotes
 * the arguments, so it is never used: instead the data rule that matched, by name (the inbox shows
 * the values), and the code policy's words ("issue-refund's own approval rule asked for these
 * arguments"), not a failed policy's error, which may quote them. With neither, the policy in words
 * ("The tool always asks" would be untrue of a rule on the amount, so it comes last).
 * @returns one line of text; direction controls shown as `⟪U+202E⟫`
 */
export function whyWithoutValues(facts: WhyFacts): string {
  const reasons = [
    facts.ruleName ? `the policy rule “${revealBidi(facts.ruleName)}” (the inbox shows the values it matched)` : null,
    facts.codeText && facts.codeReason !== 'policy-error' ? revealBidi(facts.codeText) : null,
  ].filter((reason): reason is string => reason !== null);
  return reasons.length > 0 ? reasons.join('; and ') : policyText(facts.policy);
}
