import type { InboxItem } from '@/lib/inbox/queries';

export type { InboxItem };

/** What the reviewer sends for one row (`args`: approve with edited arguments). */
export type InboxAction =
  | { type: 'approve'; args?: unknown }
  | { type: 'decline'; reason?: string }
  | { type: 'answer'; resumeData: unknown }
  /** The requester takes back their own request (declined "withdrawn by requester"). */
  | { type: 'withdraw' };

/** Whether the viewer may approve or decline this call: not their own reviewer-only request (four-eyes). */
export function canDecide(item: InboxItem, viewerId: string): boolean {
  return !(item.approvers === 'reviewer' && item.requester === viewerId);
}
