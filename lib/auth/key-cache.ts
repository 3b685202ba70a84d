import 'server-only';
import { prisma } from '@/lib/store/db';
import type { Scope } from './scopes';
import { SessionCache } from './session-cache';
import { sessionsChannel } from './sessions-channel';

/**
 * The process-wide cache of checked API keys and the one way to disable all of a person's keys.
 * Its own module so that lib/auth/guards.ts (a password change revokes the keys) can use it
 * without importing api-keys.ts, which imports the better-auth instance that imports guards.ts.
 */

/** The owner of a valid key and what the key may do. */
export interface KeyIdentity {
  user: { id: string; role: string | null; name: string; email: string; banned: boolean | null };
  keyId: string;
  scopes: Scope[];
}

/** A key better-auth accepted, as the key cache holds it: its identity and its per-minute limit. */
export interface CheckedApiKey extends KeyIdentity {
  /** Requests per minute this key may make. */
  perMinute: number;
}

/** Longest a checked key is used without asking better-auth again, in ms (changes arrive by NOTIFY at once; this is a safety net). */
const KEY_CACHE_MAX_AGE_MS = 60_000;

const globalForKeys = globalThis as unknown as { countersignKeyCache?: SessionCache<CheckedApiKey> };

/**
 * The process-wide cache of checked keys, keyed by the key's SHA-256 (the secret itself is not
 * kept). An entry is dropped when anything about the key or its owner changes: a trigger on
 * `api_keys` (enabled, scopes, expiry, limit, owner, deletion) and the one on `users` announce the
 * owner's id on the `countersign_sessions` channel (session-cache.ts), and revoking on this server
 * drops the owner's keys before it answers.
 */
export function keyCache(): SessionCache<CheckedApiKey> {
  globalForKeys.countersignKeyCache ??= new SessionCache<CheckedApiKey>(sessionsChannel(), { maxAgeMs: KEY_CACHE_MAX_AGE_MS, maxEntries: 10_000 });
  return globalForKeys.countersignKeyCache;
}

/**
 * Disables every active key of a user, at once on this server (the trigger tells the others): when
 * an admin deactivates them or resets their password, and when they change their own password.
 * @returns how many keys were disabled
 */
export async function disableAllKeysOf(userId: string): Promise<number> {
  const { count } = await prisma().apikey.updateMany({ where: { referenceId: userId, enabled: true }, data: { enabled: false } });
  keyCache().invalidateUser(userId);
  return count;
}
