import { AgentError } from './errors';
import type { Actor } from './tool';

/** A decision's withdrawal flag: the requester takes back their own request (a decline). */
export interface Withdrawal {
  withdraw?: boolean;
}

/** The reason a withdrawn request is declined with (what the model and the audit read). */
export const WITHDRAWN_REASON = 'withdrawn by requester';

/**
 * Who may withdraw a pending approval: only the person who asked for it (the run's requester or
 * the thread's owner) — also on reviewer-only calls, since withdrawing declines and runs nothing.
 * A withdrawal is an ordinary decline (same compare-and-set claim, same decisions record) whose
 * reason is WITHDRAWN_REASON.
 * @throws AgentError NOT_REQUESTER
 */
export function authorizeWithdrawal(row: { requestedBy: string; resourceId: string }, actor: Actor): void {
  if (actor.id !== row.requestedBy && actor.id !== row.resourceId) {
    throw new AgentError('NOT_REQUESTER', 'Only the person who asked for this action can withdraw it.');
  }
}

/**
 * The reason a decision records: none for an approval, WITHDRAWN_REASON for a withdrawal, else the
 * decider's reason trimmed (null when blank).
 * @throws AgentError BAD_REQUEST (a withdrawal that approves)
 */
export function declineReason(input: { approved: boolean; withdraw?: boolean; reason?: string }): string | null {
  if (input.withdraw && input.approved) throw new AgentError('BAD_REQUEST', 'A withdrawal declines the call; it cannot approve it.');
  return input.approved ? null : input.withdraw ? WITHDRAWN_REASON : input.reason?.trim() || null;
}
