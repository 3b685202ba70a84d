import 'server-only';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { recordAuditEvent } from '@/lib/audit/events';
import { ApiError } from '@/lib/http/errors';
import { countInWindow } from '@/lib/http/rate-limit';
import { prisma } from '@/lib/store/db';
import { auth } from './auth';
import { accountKey, clearSignInFailures, lockedUntil, recordFailure } from './guards';
import { SCOPES, scopesForRole, type Scope } from './scopes';
import { disableAllKeysOf, keyCache, type CheckedApiKey, type KeyIdentity } from './key-cache';

export { disableAllKeysOf, type KeyIdentity };

/**
 * API keys, on better-auth's API-key plugin (it generates the secret, stores only its hash and
 * checks a key's state and expiry; the app counts the per-key limit in PostgreSQL and keeps checked
 * keys in memory, see `verifyApiKey`). Scopes are the key's `permissions`
 * (`{ scopes: [...] }`). Management is for signed-in people through /api/keys; the plugin's own
 * HTTP endpoints are closed (app/api/auth/[...all]/route.ts) so every change is audited here.
 */

/** The prefix of every key, so leaked keys are easy to recognise (e.g. by secret scanners). */
export const API_KEY_PREFIX = 'cs_';
/** Default per-key rate limit: requests per minute. */
export const DEFAULT_KEY_RATE_LIMIT_PER_MINUTE = 120;
/** Most keys a person may have active (not revoked, not expired) at once. */
export const MAX_ACTIVE_KEYS = 10;
/** Most tries to create a key a person may make per hour (refused tries and wrong passwords count). */
export const KEY_CREATIONS_PER_HOUR = 20;

type Role = 'user' | 'reviewer' | 'admin';

/** The key a request carries: `Authorization: Bearer <key>` or `x-api-key: <key>`, else null. */
export function apiKeyFromHeaders(headers: Headers): string | null {
  const header = headers.get('x-api-key')?.trim();
  if (header) return header;
  const authorization = headers.get('authorization')?.trim();
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1] : null;
}

/** A cached key's last-used time is written at most this often, in ms (the list in /settings/keys shows it). */
const LAST_REQUEST_EVERY_MS = 60_000;

const globalForKeys = globalThis as unknown as { countersignKeyTouched?: Map<string, number> };

/** When each key's last-used time was last written by this process, in ms since the epoch. */
function keyTouched(): Map<string, number> {
  globalForKeys.countersignKeyTouched ??= new Map();
  return globalForKeys.countersignKeyTouched;
}

/**
 * Verifies a key and counts the request against the key's own limit: `rateLimitMax` requests per
 * fixed minute, counted in PostgreSQL like the other limits (the plugin's own counter only restarts
 * after a quiet minute, so a key used steadily would be locked out).
 *
 * A key is checked by the plugin (hash lookup, enabled, expiry) and its owner loaded once; then it
 * is answered from the in-process key cache until it or its owner changes (`keyCache`), never past
 * its expiry. Every request is still counted, in one statement; the key's last-used time is
 * written when the plugin checks it and at most once a minute while it is cached.
 *
 * @throws ApiError 401 API_KEY_INVALID (unknown key), 401 API_KEY_REVOKED, 401 API_KEY_EXPIRED,
 *   401 ACCOUNT_DEACTIVATED (the owner was deactivated), 429 RATE_LIMITED (with retryAfterSeconds;
 *   the key's per-minute limit); the database's own error (500 INTERNAL at the route) when it
 *   cannot be reached, never 401
 */
export async function verifyApiKey(key: string, requestHeaders: Headers): Promise<KeyIdentity> {
  const cacheKey = createHash('sha256').update(key).digest('hex');
  const checked = (await keyCache().resolve(cacheKey, () => checkApiKey(key, requestHeaders)))!;
  const { count, retryAfterSeconds } = await countInWindow({ key: `api-key:${checked.keyId}`, windowMs: 60_000 });
  if (count > checked.perMinute) {
    throw new ApiError(429, 'RATE_LIMITED', `This API key made more than ${checked.perMinute} requests this minute; try again in ${retryAfterSeconds} s.`, {
      retryAfterSeconds,
    });
  }
  await touchKey(checked.keyId);
  return { user: checked.user, keyId: checked.keyId, scopes: checked.scopes };
}

/**
 * The plugin's check of a key (which also sets its last-used time) and its owner's row.
 * @returns the checked key, its owner's id and when the key expires (ms since the epoch; Infinity: never)
 * @throws ApiError 401 as `verifyApiKey`
 */
async function checkApiKey(key: string, requestHeaders: Headers) {
  // The request's headers only give better-auth the host it is served on (dynamic base URL).
  const result = await auth().api.verifyApiKey({ body: { key }, headers: hostOnly(requestHeaders) });
  if (!result.valid || !result.key) {
    const error = (result.error ?? {}) as { code?: string };
    if (error.code === 'KEY_DISABLED') throw new ApiError(401, 'API_KEY_REVOKED', 'This API key was revoked.');
    if (error.code === 'KEY_EXPIRED') throw new ApiError(401, 'API_KEY_EXPIRED', 'This API key has expired.');
    // The plugin answers "not valid" for any failure, a database it cannot reach included. A client
    // told 401 would throw a good key away, so make sure the database answers before saying so.
    await prisma().$queryRaw`SELECT 1`;
    throw new ApiError(401, 'API_KEY_INVALID', 'This API key is not valid.');
  }
  keyTouched().set(result.key.id, Date.now());
  const user = await prisma().user.findUnique({
    where: { id: result.key.referenceId },
    select: { id: true, role: true, name: true, email: true, banned: true },
  });
  if (!user) throw new ApiError(401, 'API_KEY_INVALID', 'This API key is not valid.');
  if (user.banned) throw new ApiError(401, 'ACCOUNT_DEACTIVATED', 'The account this API key belongs to was deactivated.');
  const granted = (result.key.permissions as { scopes?: string[] } | null)?.scopes ?? [];
  const value: CheckedApiKey = {
    user,
    keyId: result.key.id,
    scopes: SCOPES.filter((scope) => granted.includes(scope)),
    perMinute: result.key.rateLimitMax ?? DEFAULT_KEY_RATE_LIMIT_PER_MINUTE,
  };
  const expiresAt = result.key.expiresAt ? new Date(result.key.expiresAt).getTime() : Number.POSITIVE_INFINITY;
  return { value, userId: user.id, expiresAt };
}

/** Writes a cached key's last-used time when this process has not written it for a minute. */
async function touchKey(keyId: string) {
  const touched = keyTouched();
  const now = Date.now();
  if (now - (touched.get(keyId) ?? 0) < LAST_REQUEST_EVERY_MS) return;
  if (touched.size >= 10_000) touched.clear();
  touched.set(keyId, now);
  await prisma().apikey.updateMany({ where: { id: keyId }, data: { lastRequest: new Date(now) } });
}

export const createKeySchema = z.object({
  name: z.string().trim().min(1).max(64),
  scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length),
  /** Days until the key expires (1–365); omitted or null: never. */
  expiresInDays: z.number().int().min(1).max(365).nullish(),
  /** Requests per minute this key may make (1–10,000; default 120). */
  rateLimitPerMinute: z.number().int().min(1).max(10_000).optional(),
  /** The person's current password, asked again: a session left open is not enough to mint a key. */
  password: z.string().min(1).max(128),
});
export type CreateKeyInput = z.infer<typeof createKeySchema>;

/** A key as its owner sees it in the list (never the secret or its hash). */
export interface ApiKeySummary {
  id: string;
  name: string;
  /** First characters of the key (prefix included), to recognise it. */
  start: string | null;
  scopes: Scope[];
  /** ISO 8601 */
  createdAt: string;
  /** ISO 8601 or null (never expires) */
  expiresAt: string | null;
  /** ISO 8601 of the last request made with it, or null */
  lastUsedAt: string | null;
  rateLimitPerMinute: number | null;
  status: 'active' | 'revoked' | 'expired';
}

/**
 * Creates a key for `actor` (the plugin generates it and keeps only its hash) and audits it.
 *
 * In order: the creation is counted (KEY_CREATIONS_PER_HOUR per person, every try, so passwords
 * cannot be guessed here either); the account must not be locked; the password is asked again
 * (a wrong one counts towards the sign-in lockout, like a wrong current password at
 * /change-password); the scopes must be within the role; at most MAX_ACTIVE_KEYS keys may be
 * active. Two creations at once may both pass the count: the count is taken again after the key
 * is made, and a key over the limit is deleted before its secret is handed out.
 *
 * @param actor the signed-in person (session, never an API key)
 * @returns the summary and the secret — the only time the secret is shown
 * @throws ApiError 429 RATE_LIMITED (too many tries this hour; retryAfterSeconds), 429 ACCOUNT_LOCKED
 *   (too many wrong passwords), 403 INVALID_PASSWORD, 403 SCOPE_NOT_ALLOWED (a scope beyond the
 *   role), 409 TOO_MANY_KEYS (MAX_ACTIVE_KEYS active already: revoke one first)
 */
export async function createApiKey(
  actor: { id: string; role: Role; email: string },
  input: CreateKeyInput,
  requestHeaders: Headers,
): Promise<{ key: ApiKeySummary; secret: string }> {
  const tries = await countInWindow({ key: `api-key-create:${actor.id}`, windowMs: 3_600_000 });
  if (tries.count > KEY_CREATIONS_PER_HOUR) {
    throw new ApiError(429, 'RATE_LIMITED', `You tried to create more than ${KEY_CREATIONS_PER_HOUR} keys this hour; try again in ${Math.ceil(tries.retryAfterSeconds / 60)} minute(s).`, {
      retryAfterSeconds: tries.retryAfterSeconds,
    });
  }
  await checkPassword(actor, input.password);
  const allowed = scopesForRole(actor.role);
  const refused = input.scopes.filter((scope) => !allowed.includes(scope));
  if (refused.length > 0) {
    throw new ApiError(403, 'SCOPE_NOT_ALLOWED', `Your role may not give a key these scopes: ${refused.join(', ')}.`, { refused });
  }
  if ((await activeKeyCount(actor.id)) >= MAX_ACTIVE_KEYS) throw tooManyKeys();
  const scopes = SCOPES.filter((scope) => input.scopes.includes(scope));
  const perMinute = input.rateLimitPerMinute ?? DEFAULT_KEY_RATE_LIMIT_PER_MINUTE;
  // Made with the caller's session (the plugin takes the owner from it, never from the body) ...
  const made = await auth().api.createApiKey({
    headers: requestHeaders,
    body: { name: input.name, prefix: API_KEY_PREFIX, expiresIn: input.expiresInDays ? input.expiresInDays * 24 * 3600 : null },
  });
  if (made.referenceId !== actor.id) throw new Error('API key owner differs from the signed-in person');
  // Another creation may have passed the count at the same moment: the later key goes.
  if ((await activeKeyCount(actor.id, made.id)) >= MAX_ACTIVE_KEYS) {
    await prisma().apikey.delete({ where: { id: made.id } });
    throw tooManyKeys();
  }
  // ... then given its scopes and limit, which the plugin accepts only from server code. Until this
  // update the key has no scope (so can do nothing), and its secret is not handed out before it.
  // Our fixed-window limit (verifyApiKey) reads rateLimitMax; the plugin's own counter is off.
  const created = await prisma().apikey.update({
    where: { id: made.id },
    data: { permissions: JSON.stringify({ scopes }), rateLimitEnabled: false, rateLimitTimeWindow: 60_000, rateLimitMax: perMinute },
  });
  await recordAuditEvent({
    action: 'api_key.created',
    actor,
    target: { type: 'api_key', id: created.id },
    details: { name: input.name, scopes, expiresAt: created.expiresAt ? new Date(created.expiresAt).toISOString() : null, rateLimitPerMinute: perMinute },
  });
  return { key: summary(created), secret: made.key };
}

/** 409 TOO_MANY_KEYS. */
function tooManyKeys(): ApiError {
  return new ApiError(409, 'TOO_MANY_KEYS', `You have ${MAX_ACTIVE_KEYS} active keys, the most allowed; revoke one you no longer use first.`, { max: MAX_ACTIVE_KEYS });
}

/**
 * How many keys of `userId` work now (enabled, not expired), made before `before` when given (ties
 * by id), so of two keys made at once only the later one is over the limit.
 */
async function activeKeyCount(userId: string, before?: string): Promise<number> {
  const [row] = await prisma().$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM api_keys k
    WHERE k.reference_id = ${userId} AND k.enabled AND (k.expires_at IS NULL OR k.expires_at > now())
      AND (${before ?? null}::text IS NULL OR (k.created_at, k.id) < (SELECT created_at, id FROM api_keys WHERE id = ${before ?? null}::text))`;
  return row.n;
}

/**
 * Asks for the person's password again before a key is made.
 * @throws ApiError 429 ACCOUNT_LOCKED while the account is locked, 403 INVALID_PASSWORD (counted
 *   towards the lockout; the try that locks the account is answered 429 ACCOUNT_LOCKED)
 */
async function checkPassword(actor: { id: string; email: string }, password: string): Promise<void> {
  const email = accountKey(actor.email);
  const locked = await lockedUntil(email);
  if (locked) throw accountLocked(locked);
  const credential = await prisma().account.findFirst({ where: { userId: actor.id, providerId: 'credential' }, select: { password: true } });
  const context = await auth().$context;
  if (credential?.password && (await context.password.verify({ hash: credential.password, password }))) {
    // The right password ends a run of wrong ones, as a sign-in does.
    await clearSignInFailures(email);
    return;
  }
  const until = await recordFailure(email);
  if (until) throw accountLocked(until);
  throw new ApiError(403, 'INVALID_PASSWORD', 'That is not your password; a new key needs your current password.');
}

function accountLocked(until: Date): ApiError {
  const retryAfterSeconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  return new ApiError(429, 'ACCOUNT_LOCKED', `Too many wrong passwords; this account is locked for ${Math.ceil(retryAfterSeconds / 60)} more minute(s).`, { retryAfterSeconds });
}

/** The keys of `userId`, newest first. */
export async function listApiKeys(userId: string): Promise<ApiKeySummary[]> {
  const rows = await prisma().apikey.findMany({ where: { referenceId: userId }, orderBy: { createdAt: 'desc' } });
  return rows.map(summary);
}

/**
 * Revokes a key (disabled at once on every server; kept, shown as revoked): one of the actor's own,
 * or — for an admin at /admin/users — one of `ownerId`'s.
 * @param ownerId whose key it is (default: the actor's own); the route allows another only to admins
 * @throws ApiError 404 NOT_FOUND (no such key of that person), 409 ALREADY_REVOKED
 */
export async function revokeApiKey(actor: { id: string; role: Role }, keyId: string, ownerId: string = actor.id): Promise<ApiKeySummary> {
  const row = await prisma().apikey.findFirst({ where: { id: keyId, referenceId: ownerId } });
  if (!row) throw new ApiError(404, 'NOT_FOUND', ownerId === actor.id ? 'There is no such key of yours.' : 'This person has no such key.');
  const updated = await prisma().apikey.updateMany({ where: { id: keyId, referenceId: ownerId, enabled: true }, data: { enabled: false } });
  if (updated.count === 0) throw new ApiError(409, 'ALREADY_REVOKED', 'This key was already revoked.');
  // The trigger's announcement reaches every server; this one stops answering from memory at once.
  keyCache().invalidateUser(row.referenceId);
  await recordAuditEvent({ action: 'api_key.revoked', actor, target: { type: 'api_key', id: keyId }, details: { name: row.name, owner: row.referenceId } });
  return summary({ ...row, enabled: false });
}

/** Just the host headers of a request (better-auth resolves its base URL from them). */
function hostOnly(headers: Headers): Headers {
  const picked = new Headers();
  const host = headers.get('host');
  if (host) picked.set('host', host);
  return picked;
}

function summary(row: {
  id: string;
  name: string | null;
  start: string | null;
  permissions: string | null;
  createdAt: Date | string;
  expiresAt: Date | string | null;
  lastRequest: Date | string | null;
  rateLimitMax: number | null;
  enabled: boolean;
}): ApiKeySummary {
  let granted: string[] = [];
  try {
    granted = (JSON.parse(row.permissions ?? 'null') as { scopes?: string[] } | null)?.scopes ?? [];
  } catch {
    granted = [];
  }
  const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
  const expiresAt = iso(row.expiresAt);
  return {
    id: row.id,
    name: row.name ?? '',
    start: row.start,
    scopes: SCOPES.filter((scope) => granted.includes(scope)),
    createdAt: iso(row.createdAt)!,
    expiresAt,
    lastUsedAt: iso(row.lastRequest),
    rateLimitPerMinute: row.rateLimitMax,
    status: !row.enabled ? 'revoked' : expiresAt && Date.parse(expiresAt) <= Date.now() ? 'expired' : 'active',
  };
}
