import type { InboxItem } from '@/lib/inbox/queries';

export type { InboxItem };

/** What the reviewer sends for one row (`args`: approve with edited arguments). */
export type InboxAction =
  | { type: 'approve'; args?: unknown }
  | { type: 'decline'; reason?: string }
  | { type: 'answer'; resumeData: unknown }
  /** The requester takes back their own request (declined "withdrawn by requester"). */
  | { type: 'withdraw' };

/**
 * Why the viewer may not approve or decline this call, or null when they may: `own-request` — their
 * own reviewer-only request (four-eyes); `escalated` — a deadline escalated it to a role they lack
 * (admins); `voted` — a quorum call they already approved, waiting for other reviewers' votes. The
 * server enforces all three (FOUR_EYES, ESCALATED_TO_ADMINS, ALREADY_VOTED); this shows why instead
 * of the buttons.
 */
export function whyCannotDecide(item: InboxItem, viewer: { id: string; role: string }): 'own-request' | 'escalated' | 'voted' | null {
  if (item.approvers === 'reviewer' && item.requester === viewer.id) return 'own-request';
  if (item.assignedToRole && item.assignedToRole !== viewer.role) return 'escalated';
  if (item.quorum && item.approvedBy.includes(viewer.id)) return 'voted';
  return null;
}

/** Whether the viewer may approve or decline this call (see whyCannotDecide). */
export function canDecide(item: InboxItem, viewer: { id: string; role: string }): boolean {
  return whyCannotDecide(item, viewer) === null;
}
