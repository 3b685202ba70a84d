import 'server-only';
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { recordAuditEvent } from '@/lib/audit/events';
import { env } from '@/lib/env';
import { Prisma } from '@/lib/generated/prisma/client';
import { ApiError } from '@/lib/http/errors';
import { afterPosition, decodeCursor, encodeCursor } from '@/lib/http/keyset';
import { addJobSql, JOB_KINDS } from '@/lib/jobs/queue';
import { prisma } from '@/lib/store/db';
import { resolvesToPrivateAddress } from './destination';

/*
 * Webhook endpoints admins register at /admin/webhooks, and the delivery log. Events are emitted
 * by database triggers in the statement of the state change they tell of (migration
 * `webhooks`); lib/webhooks/deliver.ts sends them. Every change of an endpoint is an audit entry,
 * without its secret; the secret is in the answer of creation and rotation only.
 */

/** The events an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['call.pending', 'call.decided', 'call.expired', 'run.finished'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** How long the secret before a rotation still signs deliveries, by default: 24 hours. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 60 * 60;

type Admin = { id: string; role: string };

const urlField = z.string().trim().min(1).max(2_000);
const eventsField = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .transform((events) => WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type)));

export const createWebhookSchema = z
  .object({
    url: urlField.meta({ description: 'http(s) URL the events are POSTed to' }),
    description: z.string().trim().max(200).default(''),
    events: eventsField,
    enabled: z.boolean().default(true),
  })
  .strict();

export const updateWebhookSchema = z
  .object({ url: urlField, description: z.string().trim().max(200), events: eventsField, enabled: z.boolean() })
  .partial()
  .strict()
  .refine((change) => Object.keys(change).length > 0, { error: 'Name at least one of url, description, events, enabled.' });

export const rotateWebhookSchema = z
  .object({
    graceSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 60 * 60)
      .default(DEFAULT_ROTATION_GRACE_SECONDS)
      .meta({ description: 'How long the old secret still signs deliveries (a second signature), in seconds; 0 ends it now' }),
  })
  .strict();

export const deliveriesQuerySchema = z.object({
  endpointId: z.string().min(1).max(100).optional(),
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
  cursor: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

/**
 * The URL an endpoint may have: absolute http or https, without a user name or password (the URL
 * is listed to admins and written to the audit; credentials belong in the receiver's signature
 * check, not in the URL), and — unless WEBHOOK_ALLOW_PRIVATE_NETWORKS — a host that is not, and
 * does not now resolve to, a loopback, private, link-local or other non-public address
 * (lib/webhooks/destination.ts; deliveries check the resolved address again).
 * @param options.allowPrivateNetworks default: WEBHOOK_ALLOW_PRIVATE_NETWORKS
 * @returns the URL as the WHATWG parser normalises it (`http://127.1` → `http://127.0.0.1/`)
 * @throws ApiError 400 INVALID_WEBHOOK_URL, 400 WEBHOOK_PRIVATE_ADDRESS
 */
export async function checkWebhookUrl(value: string, options: { allowPrivateNetworks?: boolean } = {}): Promise<string> {
  const url = checkWebhookUrlForm(value);
  const allowPrivate = options.allowPrivateNetworks ?? env().WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  if (!allowPrivate && (await resolvesToPrivateAddress(url.hostname))) {
    throw new ApiError(
      400,
      'WEBHOOK_PRIVATE_ADDRESS',
      `Webhooks are not sent to loopback, private, link-local or other non-public addresses (${url.hostname} is one or resolves to one); WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows them, for development and tests only.`,
    );
  }
  return url.toString();
}

/** The form checks of checkWebhookUrl (no lookup). @throws ApiError 400 INVALID_WEBHOOK_URL */
function checkWebhookUrlForm(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiError(400, 'INVALID_WEBHOOK_URL', 'The URL is not an absolute URL, e.g. https://example.com/hooks.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError(400, 'INVALID_WEBHOOK_URL', `Webhooks are sent over http or https only, not ${url.protocol.replace(/:$/, '')}.`);
  }
  if (url.username || url.password) throw new ApiError(400, 'INVALID_WEBHOOK_URL', 'The URL must not contain a user name or password.');
  return url;
}

/** A new endpoint secret: `whsec_` and 32 random bytes in base64 (the Standard Webhooks format). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** One endpoint as listed (never its secrets). */
export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string;
  events: WebhookEventType[];
  enabled: boolean;
  /** ISO 8601 */
  createdAt: string;
  updatedAt: string;
  /** Until when the secret before the last rotation still signs deliveries (ISO 8601), or null. */
  previousSecretExpiresAt: string | null;
  /** Deliveries of this endpoint by status. */
  deliveries: { pending: number; succeeded: number; failed: number };
}

const endpointSelect = {
  id: true,
  url: true,
  description: true,
  events: true,
  enabled: true,
  createdAt: true,
  updatedAt: true,
  previousSecretExpiresAt: true,
} satisfies Prisma.WebhookEndpointSelect;

type EndpointRow = Prisma.WebhookEndpointGetPayload<{ select: typeof endpointSelect }>;

async function toViews(rows: EndpointRow[]): Promise<WebhookEndpointView[]> {
  const counts = rows.length
    ? await prisma().webhookDelivery.groupBy({ by: ['endpointId', 'status'], where: { endpointId: { in: rows.map((row) => row.id) } }, _count: { _all: true } })
    : [];
  return rows.map((row) => {
    const deliveries = { pending: 0, succeeded: 0, failed: 0 };
    for (const count of counts) if (count.endpointId === row.id) deliveries[count.status as keyof typeof deliveries] = count._count._all;
    return {
      id: row.id,
      url: row.url,
      description: row.description,
      events: row.events as WebhookEventType[],
      enabled: row.enabled,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      previousSecretExpiresAt: row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date() ? row.previousSecretExpiresAt.toISOString() : null,
      deliveries,
    };
  });
}

/** Every endpoint, oldest first (no secrets). */
export async function listWebhookEndpoints(): Promise<WebhookEndpointView[]> {
  return toViews(await prisma().webhookEndpoint.findMany({ select: endpointSelect, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }));
}

async function endpointView(id: string): Promise<WebhookEndpointView> {
  const row = await prisma().webhookEndpoint.findUnique({ where: { id }, select: endpointSelect });
  if (!row) throw new ApiError(404, 'NOT_FOUND', 'There is no such webhook endpoint.');
  return (await toViews([row]))[0];
}

/**
 * Registers an endpoint (audit `webhook.created`, without the secret).
 * @returns the endpoint and its secret — the only time the secret is shown
 * @throws ApiError 400 INVALID_WEBHOOK_URL, 400 WEBHOOK_PRIVATE_ADDRESS
 */
export async function createWebhookEndpoint(admin: Admin, input: z.infer<typeof createWebhookSchema>) {
  const url = await checkWebhookUrl(input.url);
  const secret = newWebhookSecret();
  const id = `whe_${randomUUID().replaceAll('-', '')}`;
  await prisma().webhookEndpoint.create({
    data: { id, url, description: input.description, events: input.events, enabled: input.enabled, secret, createdBy: admin.id },
  });
  await recordAuditEvent({
    action: 'webhook.created',
    actor: admin,
    target: { type: 'webhook_endpoint', id },
    details: { url, description: input.description, events: input.events, enabled: input.enabled },
  });
  return { endpoint: await endpointView(id), secret };
}

/**
 * Changes an endpoint's URL, description, events or whether it is enabled (audit
 * `webhook.updated` with the fields before and after). Disabling it stops new events at once;
 * queued deliveries to it are marked failed when their turn comes.
 * @throws ApiError 400 INVALID_WEBHOOK_URL, 400 WEBHOOK_PRIVATE_ADDRESS, 404 NOT_FOUND, 409 NO_CHANGE
 */
export async function updateWebhookEndpoint(admin: Admin, id: string, change: z.infer<typeof updateWebhookSchema>) {
  const before = await prisma().webhookEndpoint.findUnique({ where: { id }, select: endpointSelect });
  if (!before) throw new ApiError(404, 'NOT_FOUND', 'There is no such webhook endpoint.');
  const next = { ...change, ...(change.url !== undefined ? { url: await checkWebhookUrl(change.url) } : {}) };
  const from: Record<string, unknown> = {};
  const to: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next) as [keyof typeof next, unknown][]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(value)) {
      from[key] = before[key];
      to[key] = value;
    }
  }
  if (Object.keys(to).length === 0) throw new ApiError(409, 'NO_CHANGE', 'The endpoint already has these settings.');
  await prisma().webhookEndpoint.update({ where: { id }, data: to });
  await recordAuditEvent({ action: 'webhook.updated', actor: admin, target: { type: 'webhook_endpoint', id }, details: { from, to } });
  return { endpoint: await endpointView(id) };
}

/**
 * Deletes an endpoint and its deliveries (audit `webhook.deleted`); queued attempts find nothing to send.
 * @throws ApiError 404 NOT_FOUND
 */
export async function deleteWebhookEndpoint(admin: Admin, id: string) {
  const deleted = await prisma().webhookEndpoint.deleteMany({ where: { id } });
  if (deleted.count === 0) throw new ApiError(404, 'NOT_FOUND', 'There is no such webhook endpoint.');
  await recordAuditEvent({ action: 'webhook.deleted', actor: admin, target: { type: 'webhook_endpoint', id } });
  return { id };
}

/**
 * Gives an endpoint a new secret (audit `webhook.secret_rotated`, without secrets). For
 * `graceSeconds` the old secret keeps signing too: each delivery carries two signatures
 * (`v1,<new> v1,<old>`), so a receiver can switch to the new secret whenever it likes within that
 * time. A rotation during a grace period ends the older one (only the last secret is kept).
 * @returns the endpoint and its new secret — the only time it is shown
 * @throws ApiError 404 NOT_FOUND
 */
export async function rotateWebhookSecret(admin: Admin, id: string, input: z.infer<typeof rotateWebhookSchema>) {
  const secret = newWebhookSecret();
  const graceSeconds = input.graceSeconds;
  const rows = await prisma().$queryRaw<{ id: string }[]>`
    UPDATE webhook_endpoints SET
      previous_secret = CASE WHEN ${graceSeconds}::int > 0 THEN secret END,
      previous_secret_expires_at = CASE WHEN ${graceSeconds}::int > 0 THEN now() + make_interval(secs => ${graceSeconds}::int) END,
      secret = ${secret}, updated_at = now()
    WHERE id = ${id}
    RETURNING id`;
  if (rows.length === 0) throw new ApiError(404, 'NOT_FOUND', 'There is no such webhook endpoint.');
  await recordAuditEvent({ action: 'webhook.secret_rotated', actor: admin, target: { type: 'webhook_endpoint', id }, details: { graceSeconds } });
  return { endpoint: await endpointView(id), secret };
}

/** One delivery as the log lists it. */
export interface WebhookDeliveryView {
  id: string;
  /** The event's id: the `webhook-id` header of every attempt. */
  eventId: string;
  type: WebhookEventType;
  endpointId: string;
  endpointUrl: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** Response time of the last attempt, in ms. */
  lastDurationMs: number | null;
  lastAttemptAt: string | null;
  /** When the next attempt is due while `pending`. */
  nextAttemptAt: string | null;
  createdAt: string;
  /** What the event is about: tool name and ids from its data. */
  subject: { toolName: string | null; runId: string | null; callId: string | null; status: string | null };
}

interface DeliveryRow {
  id: string;
  eventId: string;
  type: WebhookEventType;
  endpointId: string;
  endpointUrl: string;
  status: WebhookDeliveryView['status'];
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  data: Record<string, unknown>;
}

const text = (value: unknown) => (typeof value === 'string' ? value : null);

function toDeliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.eventId,
    type: row.type,
    endpointId: row.endpointId,
    endpointUrl: row.endpointUrl,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    lastDurationMs: row.lastDurationMs,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: row.createdAt.toISOString(),
    subject: { toolName: text(row.data.toolName), runId: text(row.data.runId), callId: text(row.data.callId), status: text(row.data.status) },
  };
}

const deliveryColumns = Prisma.sql`d.id, d.event_id AS "eventId", ev.type, d.endpoint_id AS "endpointId", e.url AS "endpointUrl", d.status, d.attempts,
  d.last_status_code AS "lastStatusCode", d.last_error AS "lastError", d.last_duration_ms AS "lastDurationMs",
  d.last_attempt_at AS "lastAttemptAt", d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt", ev.data`;

/**
 * The delivery log, newest first, one keyset page (`cursor` from the previous page's `nextCursor`).
 * @throws ApiError 400 INVALID_CURSOR
 */
export async function listWebhookDeliveries(query: z.infer<typeof deliveriesQuerySchema>) {
  const after = decodeCursor(query.cursor);
  const rows = await prisma().$queryRaw<DeliveryRow[]>`
    SELECT ${deliveryColumns}
    FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
    WHERE (${query.endpointId ?? null}::text IS NULL OR d.endpoint_id = ${query.endpointId ?? null})
      AND (${query.status ?? null}::text IS NULL OR d.status = ${query.status ?? null})
      AND ${afterPosition(after, 'd')}
    ORDER BY d.created_at DESC, d.id DESC
    LIMIT ${query.limit + 1}`;
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return { deliveries: page.map(toDeliveryView), nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
}

/**
 * Sends a delivery again now, with the same `webhook-id` and body (a receiver that already has it
 * drops it as a repeat) and a fresh timestamp and signature; it gets the full number of retries
 * again. One statement: the delivery back to `pending` and its job. Audit `webhook.delivery_resent`.
 * @returns the delivery as the resend left it (`pending`), even when a worker sends it at once
 * @throws ApiError 404 NOT_FOUND, 409 ENDPOINT_DISABLED
 */
export async function resendWebhookDelivery(admin: Admin, deliveryId: string): Promise<WebhookDeliveryView> {
  const rows = await prisma().$queryRaw<(DeliveryRow & { endpointEnabled: boolean })[]>`
    WITH target AS (
      SELECT d.id, e.enabled FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = ${deliveryId}
    ),
    resent AS (
      UPDATE webhook_deliveries d SET status = 'pending', retry_base_attempt = d.attempts, next_attempt_at = now()
      FROM target t WHERE d.id = t.id AND t.enabled
      RETURNING d.*
    ),
    job AS (
      SELECT ${addJobSql(JOB_KINDS.webhookDelivery, { deliveryId, resend: true }, { key: `webhook-delivery:${deliveryId}` })} FROM resent
    ),
    -- The delivery as this resend left it (pending), from the update itself: read afterwards, it
    -- may already have been sent by a worker. Empty when the endpoint is disabled.
    view AS (
      SELECT ${deliveryColumns}
      FROM resent d JOIN webhook_events ev ON ev.id = d.event_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
    )
    SELECT t.enabled AS "endpointEnabled", (SELECT count(*) FROM job) AS jobs, v.* FROM target t LEFT JOIN view v ON true`;
  const [row] = rows;
  if (!row) throw new ApiError(404, 'NOT_FOUND', 'There is no such delivery.');
  if (!row.endpointEnabled || row.id === null) throw new ApiError(409, 'ENDPOINT_DISABLED', 'The endpoint is disabled; enable it before resending.');
  await recordAuditEvent({ action: 'webhook.delivery_resent', actor: admin, target: { type: 'webhook_delivery', id: deliveryId } });
  return toDeliveryView(row);
}
