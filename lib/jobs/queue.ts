import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';

/*
 * The job queue: graphile-worker on the app's own PostgreSQL (schema `graphile_worker`).
 *
 * Why graphile-worker (and not pg-boss): a job can be added from SQL (`graphile_worker.add_job`),
 * so a job commits in the same statement as the row it is about — the deadline of a pending call is
 * scheduled by a trigger on `pending_tool_calls`, whoever sets it (a tool's code or a data policy).
 * New jobs are picked up through LISTEN/NOTIFY, so a job added now starts within milliseconds; a
 * `job_key` keeps one job per subject (re-setting a deadline replaces its job). Both libraries' newest
 * releases want Node 22; graphile-worker 0.17 still runs on Node 20, which this project supports.
 */

/** Every job kind the worker runs. */
export const JOB_KINDS = {
  /** Crash recovery (runs whose process died), overdue deadlines, old rate-limit/idempotency rows. Re-schedules itself. */
  recoverySweep: 'recovery-sweep',
  /** One pending call's deadline: decline or escalate it (payload `{ pendingCallId }`). */
  callDeadline: 'call-deadline',
  /** A notification (email, webhook, …) handed to the handler registered for its `channel`. */
  notification: 'notification',
  /**
   * One webhook delivery attempt (payload `{ deliveryId, resend? }`; lib/webhooks/deliver.ts). Added
   * by the database trigger of the event's state change, by the previous failed attempt (back-off),
   * or by an admin's resend; `job_key` `webhook-delivery:<id>` keeps one queued per delivery.
   */
  webhookDelivery: 'webhook-delivery',
} as const;

export type JobKind = (typeof JOB_KINDS)[keyof typeof JOB_KINDS];

/** Payload of a `notification` job. */
export interface NotificationJob {
  /** Which handler sends it, e.g. `email` or `webhook` (see `registerNotificationHandler`). */
  channel: string;
  /** What the handler needs; JSON. */
  payload: unknown;
}

export interface EnqueueOptions {
  /** Not before this time (default: now). */
  runAt?: Date;
  /**
   * At most one queued job per key: adding a job with the key of a queued one replaces it
   * (graphile-worker `job_key`, mode `replace`); use it to de-duplicate, e.g. `email:<decision id>`.
   */
  key?: string;
  /** Attempts before the job is given up (default 25, with exponential back-off). */
  maxAttempts?: number;
}

/**
 * SQL that adds a job, for use inside a statement of your own (e.g. a CTE next to the row it is
 * about, so both commit together): `SELECT ${addJobSql(...)}` or `… , job AS (SELECT ${addJobSql(...)})`.
 *
 * @param kind the job kind (a key of the worker's task list)
 * @param payload JSON payload
 */
export function addJobSql(kind: JobKind, payload: unknown, options: EnqueueOptions = {}): Prisma.Sql {
  return Prisma.sql`graphile_worker.add_job(
    ${kind}::text,
    payload => ${JSON.stringify(payload ?? {})}::json,
    run_at => ${options.runAt ? options.runAt.toISOString() : null}::timestamptz,
    max_attempts => ${options.maxAttempts ?? null}::int,
    job_key => ${options.key ?? null}::text
  )`;
}

/**
 * Adds a job (one statement). Works from any process — web servers with `JOBS_IN_PROCESS=false`
 * too: whichever worker is running picks it up (within milliseconds, through LISTEN/NOTIFY).
 *
 * @param db the Prisma client (or a transaction client, to commit the job with other writes)
 */
export async function enqueueJob(db: Pick<PrismaClient, '$executeRaw'>, kind: JobKind, payload: unknown, options: EnqueueOptions = {}) {
  await db.$executeRaw`SELECT ${addJobSql(kind, payload, options)}`;
}

/**
 * Queues a notification for the handler registered for `job.channel` (see
 * `registerNotificationHandler`). A handler that throws is retried with back-off (up to
 * `maxAttempts`); a channel without a handler fails the job (and is retried, so a handler
 * registered by a later deploy still gets it).
 *
 * @example await enqueueNotification(prisma(), { channel: 'email', payload: { to, subject, body } }, { key: `email:${decisionId}` })
 */
export function enqueueNotification(db: Pick<PrismaClient, '$executeRaw'>, job: NotificationJob, options: EnqueueOptions = {}) {
  return enqueueJob(db, JOB_KINDS.notification, job, options);
}

/** Sends one notification; throw to have it retried. */
export type NotificationHandler = (payload: unknown, context: { attempt: number; maxAttempts: number; jobId: string }) => Promise<void>;

const globalForHandlers = globalThis as unknown as { countersignNotificationHandlers?: Map<string, NotificationHandler> };
const handlers = (globalForHandlers.countersignNotificationHandlers ??= new Map());

/**
 * Registers the sender for a notification channel (once per process, at module load of the
 * sender; registering a channel again replaces its handler). Handlers run in the worker process:
 * the server's own with `JOBS_IN_PROCESS` (default), or `npm run worker`.
 */
export function registerNotificationHandler(channel: string, handler: NotificationHandler) {
  handlers.set(channel, handler);
}

/** The handler of a channel, if one is registered. */
export function notificationHandler(channel: string): NotificationHandler | undefined {
  return handlers.get(channel);
}
