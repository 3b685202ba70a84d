import { formatDuration, intervalToDuration } from 'date-fns';

/**
 * Deadlines of pending calls (behaviour: deadlines and escalation). A call that waits for approval
 * may carry a deadline: when nobody decided it by then, it is either
 * - declined by the system, with a reason the model reads ("No reviewer decided within 4 hours.")
 *   — through the same compare-and-set claim as a person's decision, so when a person and the
 *   deadline race exactly one wins, and the run continues exactly as after a person's decline; or
 * - escalated: assigned to admins and its deadline extended once by the same span; at the new
 *   deadline it is declined.
 * The job queue (lib/jobs) acts at the deadline; this module holds the pure rules.
 */

/** What happens at a pending call's deadline: it is declined, or escalated to admins (deadline extended once). */
export type DeadlineAction = 'decline' | 'escalate';

/** A tool's deadline (`createTool({ deadline })`). */
export interface ToolDeadline {
  /** How long after the call starts waiting, in ms (1 s to 366 days). */
  afterMs: number;
  action: DeadlineAction;
  /** The decline reason the model reads; default derived from the span ("No reviewer decided within …"). */
  reason?: string;
}

/** Shortest and longest deadline a tool may set, in ms. */
export const MIN_DEADLINE_MS = 1_000;
export const MAX_DEADLINE_MS = 366 * 24 * 60 * 60 * 1_000;

/** Who decides at a deadline: recorded as actor `system` (role `system` in the audit). */
export const SYSTEM_ACTOR_ID = 'system';
/** The actor the runtime acts as at a deadline (four-eyes does not apply to it; see ClaimInput.byDeadline). */
export const SYSTEM_ACTOR: { id: string; role: 'admin' } = { id: SYSTEM_ACTOR_ID, role: 'admin' };
/** The role escalated calls are assigned to. */
export const ESCALATION_ROLE = 'admin';

/**
 * Checks a tool's deadline option at definition time.
 * @throws Error naming the problem (a programming error in the tool's definition)
 */
export function checkToolDeadline(toolId: string, deadline: ToolDeadline | undefined): void {
  if (deadline === undefined) return;
  const { afterMs, action } = deadline;
  if (!Number.isInteger(afterMs) || afterMs < MIN_DEADLINE_MS || afterMs > MAX_DEADLINE_MS) {
    throw new Error(`Tool ${toolId}: deadline.afterMs must be a whole number of ms from ${MIN_DEADLINE_MS} to ${MAX_DEADLINE_MS}.`);
  }
  if (action !== 'decline' && action !== 'escalate') throw new Error(`Tool ${toolId}: deadline.action must be 'decline' or 'escalate'.`);
}

/**
 * A span in words, largest units first, seconds only under a minute: 14_400_000 → "4 hours",
 * 5_400_000 → "1 hour 30 minutes", 3_000 → "3 seconds".
 */
export function spanInWords(ms: number): string {
  const whole = Math.max(1_000, Math.round(ms / 1_000) * 1_000);
  const duration = intervalToDuration({ start: 0, end: whole });
  const format: (keyof typeof duration)[] = whole < 60_000 ? ['seconds'] : ['years', 'months', 'days', 'hours', 'minutes'];
  return formatDuration(duration, { format }) || '1 minute';
}

/**
 * The decline reason at a deadline, as the model and the card read it.
 * @param waitedMs how long the call waited (deadline − when it started waiting), in ms
 * @param escalated whether it was escalated to admins before
 */
export function deadlineDeclineReason(waitedMs: number, escalated = false): string {
  return escalated
    ? `No reviewer or admin decided within ${spanInWords(waitedMs)} (escalated to admins on the way), so it was declined automatically.`
    : `No reviewer decided within ${spanInWords(waitedMs)}, so it was declined automatically.`;
}

/** The audit reason of an escalation. @param waitedMs how long the call had waited, in ms */
export function escalationReason(waitedMs: number): string {
  return `No reviewer decided within ${spanInWords(waitedMs)}; escalated to admins.`;
}

/** The deadline columns of a new approval row for `tool` (none when the tool sets no deadline). */
export function deadlineColumns(tool: { deadline?: ToolDeadline }): {
  deadlineAfterMs: number | null;
  deadlineAction: DeadlineAction | null;
  deadlineReason: string | null;
} {
  const deadline = tool.deadline;
  return { deadlineAfterMs: deadline?.afterMs ?? null, deadlineAction: deadline?.action ?? null, deadlineReason: deadline?.reason ?? null };
}
