import 'server-only';
import { z } from 'zod';
import type { Tool } from '@/lib/agent/tool';
import { env } from '@/lib/env';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { enqueueNotification, registerNotificationHandler, type NotificationHandler } from '@/lib/jobs/queue';
import { prisma } from '@/lib/store/db';
import { notifyReviewers, type NotifyOutcome } from './reviewers';

/*
 * Reviewer email as jobs of the queue (channel `reviewer-email`). The statement that inserts a
 * reviewer-only call also queues its `needs-review` job (a trigger on pending_tool_calls, due 30 s
 * later), and the statement that escalates a call at its deadline queues its `overdue` job (due at
 * once; lib/store/deadlines.ts). So a server that dies after the commit loses no mail, a failing mail
 * server is retried with back-off (graphile-worker, up to 10 attempts), and the
 * `notification_deliveries` claim in notifyReviewers sends each (call, kind) once however many
 * times a job runs. The server that paused the call also tries at once after the commit (afterPause
 * in reviewers.ts): mail goes out without waiting for a worker, and from the server that handled the
 * request; the job then finds it sent. The 30 s keep the two from racing for the claim.
 *
 * When is a call overdue (the inbox highlights it, and reviewers are mailed once)?
 * - It has a deadline that escalates: at that deadline. It is escalated to admins (only they may
 *   decide it then), the deadline is extended once, and the admins get the "Overdue" mail.
 * - It has a deadline that declines: never. At the deadline it is declined by the system (a
 *   `decline` decision by `system` in the audit chain, "Declined at deadline"); nobody is mailed.
 * - It has no deadline: once it waited INBOX_OVERDUE_AFTER (default 24 h — a working day and a
 *   night: a call still waiting the next day has been missed, while a shorter span would flag calls
 *   that merely wait for the morning). Only calls whose needs-review mail went out (reviewer-only
 *   approvals) get the overdue mail; the needs-review job schedules it.
 */

/** The notification channel of reviewer email. */
export const REVIEWER_EMAIL_CHANNEL = 'reviewer-email';

const reviewEventSchema = z.object({ kind: z.enum(['needs-review', 'overdue']), pendingCallId: z.string().min(1).max(200) });

export interface ReviewerEmailDeps {
  /** Default: the process's client. */
  db?: PrismaClient;
  /** A call's tool by name, for its description and sensitive fields (default: the app's agents). */
  tool?: (toolName: string) => Promise<Tool | undefined> | Tool | undefined;
  /** How long a call without a deadline waits before it is overdue, in ms (default INBOX_OVERDUE_AFTER). */
  overdueAfterMs?: () => number;
  /** Told each outcome (tests, logs). */
  onOutcome?: (event: z.infer<typeof reviewEventSchema>, outcome: NotifyOutcome | { status: 'rescheduled' }) => void;
}

/**
 * The handler of `reviewer-email` jobs (payload `{ kind: 'needs-review' | 'overdue', pendingCallId }`):
 * - `needs-review`: first schedules the call's `overdue` job (a call without a deadline, at
 *   created_at + INBOX_OVERDUE_AFTER; one job per call by key), then mails the reviewers.
 * - `overdue`: a call without a deadline that is not due yet (the setting grew since it was
 *   scheduled) is scheduled again for when it is due; otherwise mails (notifyReviewers decides who).
 * Throws when the mail server fails, or another sender holds the claim, so the job is retried.
 */
export function reviewerEmailHandler(deps: ReviewerEmailDeps = {}): NotificationHandler {
  return async (payload) => {
    const event = reviewEventSchema.parse(payload);
    const db = deps.db ?? prisma();
    const overdueAfterMs = (deps.overdueAfterMs ?? (() => env().INBOX_OVERDUE_AFTER))();
    const [call] = await db.$queryRaw<{ status: string; createdAt: Date; deadlineAt: Date | null }[]>`
      SELECT status, created_at AS "createdAt", deadline_at AS "deadlineAt" FROM pending_tool_calls WHERE id = ${event.pendingCallId}`;
    const dueAt = call && call.status === 'pending' && call.deadlineAt === null ? new Date(call.createdAt.getTime() + overdueAfterMs) : null;
    if (dueAt && (event.kind === 'needs-review' || dueAt.getTime() > Date.now())) {
      await enqueueNotification(
        db,
        { channel: REVIEWER_EMAIL_CHANNEL, payload: { kind: 'overdue', pendingCallId: event.pendingCallId } },
        { key: `${REVIEWER_EMAIL_CHANNEL}:overdue:${event.pendingCallId}`, runAt: dueAt, maxAttempts: 10 },
      );
      if (event.kind === 'overdue') {
        deps.onOutcome?.(event, { status: 'rescheduled' });
        return;
      }
    }
    const outcome = await notifyReviewers(event, { db, tool: deps.tool });
    deps.onOutcome?.(event, outcome);
    // Another sender holds the claim: retried with back-off until it sent (duplicate) or its claim went stale.
    if (outcome.status === 'in-flight') throw new Error(`The ${event.kind} mail about ${event.pendingCallId} is being sent elsewhere; trying again later.`);
  };
}

// The app's handler (the worker process loads this module through lib/jobs/notification-handlers.ts).
registerNotificationHandler(REVIEWER_EMAIL_CHANNEL, reviewerEmailHandler());
