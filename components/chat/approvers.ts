/**
 * Who decided an approval card's call, and how far a quorum call's count has come, in the words
 * every view uses: the chat's card, the inbox's read-only transcript, the audit's thread view, the
 * audit log and the inbox's Done tab. Pure, safe on the server and in the browser.
 */

import { personName, type People } from '@/lib/present/describe';
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

/**
 * A waiting quorum call's count as the chat's card says it: `count` "1 of 2 approvals." and `detail`
 * "2 different reviewers must approve this action (so far: Rita (rita@example.com))." (the viewer
 * is "you").
 * @returns null for a call that needs no quorum
 */
export function quorumProgress(
  data: Pick<ApprovalCardData, 'quorum' | 'approvals' | 'approvedBy'>,
  people: People,
  viewerId?: string,
): { count: string; detail: string } | null {
  if (!data.quorum) return null;
  const approvedBy = data.approvedBy ?? [];
  const soFar = approvedBy.length > 0 ? ` (so far: ${approvedBy.map((id) => personName(id, people, viewerId)).join(', ')})` : '';
  return {
    count: `${data.approvals ?? approvedBy.length} of ${data.quorum} approvals.`,
    detail: `${data.quorum} different reviewers must approve this action${soFar}.`,
  };
}

/** One decision record as the audit and the inbox's Done tab list it, with its call's quorum. */
export interface QuorumDecision {
  /** `vote`: an approval short of the quorum; `approval`: the approval that decided the call; others count nothing. */
  kind: string;
  actorId: string;
  /** The call's quorum; null or absent for a call without one. */
  quorum?: number | null;
  /** Everyone who approved the quorum call, in the order they did (the call's `approvedBy`). */
  approvedBy?: readonly string[];
}

/**
 * Where a quorum call's count stood with this approval: a vote is its place among the call's
 * approvals (Rita's first vote: 1 of 2), the approval that filled the quorum counts everyone who
 * approved it, as deciderIds names them (2 of 2).
 * @returns null for a call without a quorum, a decision that is not an approval, or a vote whose
 *   author the call does not list
 */
export function approvalCount(decision: QuorumDecision): { count: number; quorum: number } | null {
  const { quorum, approvedBy = [] } = decision;
  if (!quorum) return null;
  if (decision.kind === 'vote') {
    const position = approvedBy.indexOf(decision.actorId) + 1;
    return position > 0 ? { count: position, quorum } : null;
  }
  if (decision.kind !== 'approval') return null;
  return { count: deciderIds({ quorum, approvedBy: [...approvedBy], decision: { approved: true, by: decision.actorId, at: '' } }).length, quorum };
}

/**
 * An approval's label with its quorum count: "Approved (1 of 2)" for Rita's vote, "Approved (2 of 2)"
 * for the approval that filled the quorum, "Approved (vote)" for a vote the count cannot place, and
 * plain `approved` otherwise.
 * @param approved the word for the approval ("Approved", "Approved with edits")
 */
export function approvalLabel(decision: QuorumDecision, approved = 'Approved'): string {
  const count = approvalCount(decision);
  if (count) return `${approved} (${count.count} of ${count.quorum})`;
  return decision.kind === 'vote' ? `${approved} (vote)` : approved;
}
