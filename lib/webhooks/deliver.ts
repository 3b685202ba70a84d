import { Webhook } from 'standardwebhooks';
import type { Sensitivity } from '@/lib/agent/tool';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { addJobSql, JOB_KINDS } from '@/lib/jobs/queue';
import { redactArgs } from '@/lib/notify/redact';
import { hidesValues, whyWithoutValues, type WhyFacts } from '@/lib/notify/why';
import { postWebhook } from './send';

/*
 * Sending one webhook delivery (the `webhook-delivery` job), following the Standard Webhooks
 * specification (https://www.standardwebhooks.com): a POST of `{ type, timestamp, data }` with the
 * headers `webhook-id` (the event's id, the same on every attempt and every endpoint, so receivers
 * can drop repeats), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, made by the `standardwebhooks` package; during
 * a secret rotation one signature per secret, space-separated, as the specification allows).
 * A 2xx answer is success; anything else — another status, a redirect, a network error, no answer
 * within the timeout, a private destination — is a failed attempt, retried with exponential
 * back-off. The HTTP exchange itself (at most 4 KiB of the answer read, destinations checked, coarse
 * errors) is lib/webhooks/send.ts.
 */

/** How deliveries are sent; defaults come from WEBHOOK_TIMEOUT_MS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_BASE_MS. */
export interface DeliveryOptions {
  /** How long one attempt waits for the answer (headers and body), in ms. */
  timeoutMs: number;
  /** Attempts (the first and its retries) before the delivery is marked failed. */
  maxAttempts: number;
  /** Wait before the first retry, in ms; each further one waits twice as long, at most MAX_RETRY_DELAY_MS. */
  retryBaseMs: number;
  /** A tool's sensitivity marker by tool name: those argument values are masked in the payload. */
  sensitivity: (toolName: string) => Sensitivity | undefined;
  /**
   * Whether loopback, private, link-local and other non-public addresses may be sent to
   * (WEBHOOK_ALLOW_PRIVATE_NETWORKS; lib/webhooks/destination.ts). Off, such a destination fails the
   * attempt as `refused: private network address`, checked on the address actually connected to.
   */
  allowPrivateNetworks: boolean;
}

/** The longest wait between two attempts: 6 hours. */
export const MAX_RETRY_DELAY_MS = 6 * 60 * 60 * 1000;

/**
 * The wait before retry number `retry` (1 for the first retry): `baseMs · 2^(retry-1)`, capped at
 * MAX_RETRY_DELAY_MS.
 */
export function retryDelayMs(retry: number, baseMs: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, retry - 1));
}

/** What one run of the job did. */
export type DeliveryOutcome =
  | { status: 'succeeded'; statusCode: number; durationMs: number }
  | { status: 'retrying'; statusCode: number | null; error: string | null; retryAt: Date }
  | { status: 'failed'; statusCode: number | null; error: string | null }
  /** Nothing to send: the delivery is gone (its endpoint deleted), or not waiting to be sent (sent already). */
  | { status: 'skipped' };

interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  retryBaseAttempt: number;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  eventId: string;
  type: string;
  data: Record<string, unknown>;
  args: unknown;
  eventCreatedAt: Date;
  /** The call's pending row, for call events whose call still exists. */
  policy: string | null;
  ruleName: string | null;
  codeText: string | null;
  codeReason: string | null;
}

/** What asked for a call's approval, read from its pending row at delivery (see webhookBody). */
export type WhyOfCall = Omit<WhyFacts, 'why'>;

/**
 * The body of an event, the same on every attempt: `{ type, timestamp, data }` where `data` holds
 * the ids, tool name, status and people of the event, and — for call events — the call's arguments
 * with the values the tool marks sensitive replaced by `•••` (lib/notify/redact.ts). For such a tool
 * the policy's own reason (`why`, e.g. "amount 287.45 > 100") is replaced by words without values —
 * the rule's name, the code policy's words (lib/notify/why.ts), as the reviewer mail says it.
 *
 * @param event.whyOfCall the call's rule name, code policy and policy (null when the call is gone:
 *   then the policy is named only as "a policy rule")
 */
export function webhookBody(
  event: { type: string; data: Record<string, unknown>; args: unknown; createdAt: Date; whyOfCall?: WhyOfCall | null },
  sensitivity: DeliveryOptions['sensitivity'],
): string {
  const toolName = typeof event.data.toolName === 'string' ? event.data.toolName : undefined;
  const sensitive = toolName ? sensitivity(toolName) : undefined;
  let data = event.data;
  if (event.type.startsWith('call.')) {
    data = { ...data, args: redactArgs(event.args ?? null, sensitive) };
    if (hidesValues(sensitive) && typeof data.why === 'string') {
      data.why = event.whyOfCall ? whyWithoutValues({ why: null, ...event.whyOfCall }) : 'a policy rule (the inbox shows the values it matched)';
    }
  }
  return JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data });
}

/**
 * The `webhook-signature` header: one `v1,…` signature per secret in use — the current one, and the
 * one before a rotation until its grace period ends — separated by spaces.
 *
 * @param at the attempt's time (the `webhook-timestamp`)
 */
export function signatureHeader(input: { id: string; at: Date; body: string; secrets: string[] }): string {
  return input.secrets.map((secret) => new Webhook(secret).sign(input.id, input.at, input.body)).join(' ');
}

/**
 * Sends one delivery once, records the attempt (status code or error, response time) and, unless
 * it succeeded or used its attempts, schedules the next attempt with exponential back-off — the
 * log row, the counters and the next job commit in one statement. A delivery that is no longer
 * `pending` (sent, failed, deleted) is skipped, so a job that runs twice sends nothing twice.
 *
 * @param input.resend this attempt is an admin's "resend" (flagged in the log)
 * @returns what happened
 */
export async function deliverWebhook(db: PrismaClient, input: { deliveryId: string; resend?: boolean }, options: DeliveryOptions): Promise<DeliveryOutcome> {
  const [row] = await db.$queryRaw<DeliveryRow[]>`
    SELECT d.id, d.status, d.attempts, d.retry_base_attempt AS "retryBaseAttempt", e.url, e.enabled, e.secret,
      e.previous_secret AS "previousSecret", e.previous_secret_expires_at AS "previousSecretExpiresAt",
      ev.id AS "eventId", ev.type, ev.data, ev.args, ev.created_at AS "eventCreatedAt",
      p.policy, p.policy_evaluation->'rule'->>'name' AS "ruleName", p.policy_evaluation->'code'->>'text' AS "codeText",
      p.policy_evaluation->'code'->>'reason' AS "codeReason"
    FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events ev ON ev.id = d.event_id
      LEFT JOIN pending_tool_calls p ON p.id = ev.data->>'callId'
    WHERE d.id = ${input.deliveryId}`;
  if (!row || row.status !== 'pending') return { status: 'skipped' };
  const attempt = row.attempts + 1;
  if (!row.enabled) {
    await db.$executeRaw`
      UPDATE webhook_deliveries SET status = 'failed', last_error = 'The endpoint is disabled.', next_attempt_at = NULL
      WHERE id = ${row.id} AND status = 'pending'`;
    return { status: 'failed', statusCode: null, error: 'The endpoint is disabled.' };
  }

  const whyOfCall = row.policy === null ? null : { policy: row.policy, ruleName: row.ruleName, codeText: row.codeText, codeReason: row.codeReason };
  const body = webhookBody({ type: row.type, data: row.data, args: row.args, createdAt: row.eventCreatedAt, whyOfCall }, options.sensitivity);
  const at = new Date();
  const secrets = [row.secret];
  if (row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > at) secrets.push(row.previousSecret);
  const started = performance.now();
  const sent = await postWebhook({
    url: row.url,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Countersign-Webhooks/1.0',
      'webhook-id': row.eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatureHeader({ id: row.eventId, at, body, secrets }),
    },
    body,
    timeoutMs: options.timeoutMs,
    allowPrivateNetworks: options.allowPrivateNetworks,
  });
  const statusCode = sent.statusCode;
  const error = sent.statusCode === null ? sent.error : sent.statusCode < 200 || sent.statusCode > 299 ? `HTTP ${sent.statusCode}` : null;
  const durationMs = Math.round(performance.now() - started);
  const ok = error === null;
  const usedUp = attempt - row.retryBaseAttempt >= options.maxAttempts;
  const next = ok || usedUp ? null : new Date(Date.now() + retryDelayMs(attempt - row.retryBaseAttempt, options.retryBaseMs));
  const status = ok ? 'succeeded' : next ? 'pending' : 'failed';
  const job = next
    ? Prisma.sql`SELECT ${addJobSql(JOB_KINDS.webhookDelivery, { deliveryId: row.id }, { runAt: next, key: `webhook-delivery:${row.id}` })} FROM updated`
    : Prisma.sql`SELECT 1 FROM updated`;
  await db.$executeRaw`
    WITH updated AS (
      UPDATE webhook_deliveries SET status = ${status}, attempts = ${attempt}, last_status_code = ${statusCode}, last_error = ${error},
        last_duration_ms = ${durationMs}, last_attempt_at = ${at.toISOString()}::timestamptz, next_attempt_at = ${next?.toISOString() ?? null}::timestamptz
      WHERE id = ${row.id} AND status = 'pending' AND attempts = ${row.attempts}
      RETURNING id
    ),
    logged AS (
      INSERT INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, resend, created_at)
      SELECT id, ${attempt}, ${statusCode}, ${error}, ${durationMs}, ${input.resend === true}, ${at.toISOString()}::timestamptz FROM updated
    )
    -- A CTE nobody reads is not run: the next attempt's job is the statement's own result.
    ${job}`;
  if (ok) return { status: 'succeeded', statusCode: statusCode!, durationMs };
  return next ? { status: 'retrying', statusCode, error, retryAt: next } : { status: 'failed', statusCode, error };
}
