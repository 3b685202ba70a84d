/**
 * Who decided an approval card's call, as every view of a thread names them: the chat's card, the
 * inbox's read-only transcript and the audit's thread view. Pure, safe on the server and in the browser.
 */

import { personName, type People } from '@/components/ui/describe';
import type { ApprovalCardData } from '@/lib/ui-stream/map';

const LIST = new Intl.ListFormat('en', { style: 'long', type: 'conjunction' });

/**
 * The people who decided the call, in order: for an approved quorum call everyone who approved it
 * (the earlier votes, then the approval that filled it, each once), otherwise the one decider.
 * @returns user ids; empty while the call waits
 */
export function deciderIds(data: Pick<ApprovalCardData, 'quorum' | 'approvedBy' | 'decision'>): string[] {
  const decision = data.decision;
  if (!decision) return [];
  if (decision.approved !== false && data.quorum) return [...new Set([...(data.approvedBy ?? []), ...(decision.by ? [decision.by] : [])])];
  return decision.by ? [decision.by] : [];
}

/** The deciders in words: "Rita (rita@example.com) and Sam (sam@example.com)", "you", "someone". */
export function decidersText(data: Pick<ApprovalCardData, 'quorum' | 'approvedBy' | 'decision'>, people: People, viewerId?: string): string {
  const ids = deciderIds(data);
  if (ids.length === 0) return personName(undefined, people, viewerId);
  return LIST.format(ids.map((id) => personName(id, people, viewerId)));
}

/**
 * `items` as an English list ("A, B and C") in parts, for a view that renders each item itself (a
 * person's label): `element` parts are the items, `literal` parts the words between them.
 */
export function listParts(items: string[]): { type: 'element' | 'literal'; value: string }[] {
  return LIST.formatToParts(items);
}
