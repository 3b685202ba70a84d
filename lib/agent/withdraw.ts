import { AgentError } from './errors';
import type { Actor } from './tool';

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
