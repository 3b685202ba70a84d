import 'server-only';
import type { BetterAuthOptions } from 'better-auth';
import { APIError, createAuthMiddleware, getSessionFromCtx, isAPIError } from 'better-auth/api';
import { recordAuditEvent } from '@/lib/audit/events';
import { countInWindow } from '@/lib/http/rate-limit';
import { securitySettings } from '@/lib/security/settings';
import { signUpRefusal } from '@/lib/security/sign-up';
import { displayNameRefusal } from './name-rules';
import { passwordRefusal } from './password-rules';

export { signUpRefusal };
import { prisma } from '@/lib/store/db';
import { disableAllKeysOf } from './key-cache';

/**
 * Rules around better-auth's routes: who may sign up, when an account is locked after failed
 * sign-ins, and that changing a password signs out the other sessions. Counters live in
 * PostgreSQL, so every server sees the same numbers.
 */

/** The account key of an email: trimmed and lower-cased. */
export const accountKey = (email: unknown) => (typeof email === 'string' ? email.trim().toLowerCase() : '');

/**
 * The lock on an account, if any.
 * @returns when it ends, or null when the account is not locked
 */
export async function lockedUntil(email: string): Promise<Date | null> {
  const row = await prisma().signInFailure.findUnique({ where: { email }, select: { lockedUntil: true } });
  return row?.lockedUntil && row.lockedUntil > new Date() ? row.lockedUntil : null;
}

/**
 * Refuses a request for a locked account.
 * @throws APIError 429 ACCOUNT_LOCKED, with Retry-After in seconds, while `email`'s account is locked
 */
async function refuseWhileLocked(email: string): Promise<void> {
  const until = await lockedUntil(email);
  if (until) throw lockedError(until);
}

/** 429 ACCOUNT_LOCKED until `until`, with Retry-After in seconds. */
function lockedError(until: Date): APIError {
  const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  return new APIError(
    'TOO_MANY_REQUESTS',
    { code: 'ACCOUNT_LOCKED', message: `Too many wrong passwords; this account is locked for ${Math.ceil(seconds / 60)} more minute(s).` },
    { 'Retry-After': String(seconds) },
  );
}

/**
 * Clears an account's failed sign-ins and its lock: after a successful sign-in, a password change,
 * or an admin's reset (the new temporary password must work at once).
 */
export async function clearSignInFailures(email: string): Promise<void> {
  await prisma().signInFailure.deleteMany({ where: { email: accountKey(email) } });
}

/**
 * Counts a failed sign-in in one statement: within SIGN_IN_LOCKOUT_MINUTES of the first failure
 * the count grows, after that it starts again; at SIGN_IN_MAX_FAILURES the account is locked for
 * SIGN_IN_LOCKOUT_MINUTES. Unknown emails are counted like real ones (no account enumeration).
 * @returns when the account's lock ends, if it is locked now
 */
export async function recordFailure(email: string): Promise<Date | null> {
  const { SIGN_IN_MAX_FAILURES: max, SIGN_IN_LOCKOUT_MINUTES: minutes } = securitySettings();
  const [row] = await prisma().$queryRaw<{ locked_until: Date | null }[]>`
    INSERT INTO sign_in_failures (email, failures, window_started_at, locked_until)
    VALUES (${email}, 1, now(), CASE WHEN 1 >= ${max} THEN now() + make_interval(mins => ${minutes}) END)
    ON CONFLICT (email) DO UPDATE SET
      failures = CASE WHEN sign_in_failures.window_started_at < now() - make_interval(mins => ${minutes})
                      THEN 1 ELSE sign_in_failures.failures + 1 END,
      window_started_at = CASE WHEN sign_in_failures.window_started_at < now() - make_interval(mins => ${minutes})
                               THEN now() ELSE sign_in_failures.window_started_at END,
      locked_until = CASE
        WHEN (CASE WHEN sign_in_failures.window_started_at < now() - make_interval(mins => ${minutes})
                   THEN 1 ELSE sign_in_failures.failures + 1 END) >= ${max}
        THEN now() + make_interval(mins => ${minutes})
        ELSE sign_in_failures.locked_until END
    RETURNING locked_until`;
  // Rows of long-past failures are of no use; trim them now and then.
  if (Math.random() < 0.01) {
    await prisma().$executeRaw`DELETE FROM sign_in_failures WHERE window_started_at < now() - interval '1 day' AND (locked_until IS NULL OR locked_until < now())`;
  }
  return row?.locked_until && row.locked_until > new Date() ? row.locked_until : null;
}

/**
 * better-auth's limiter storage on the `rate_limits` table (sliding windows of `rule.window`
 * seconds), instead of its default per-process memory.
 */
export const postgresRateLimitStorage: NonNullable<NonNullable<BetterAuthOptions['rateLimit']>['customStorage']> = {
  async consume(key, rule) {
    const { count, retryAfterSeconds } = await countInWindow({ key: `auth:${key}`, windowMs: rule.window * 1000 });
    return count > rule.max ? { allowed: false, retryAfter: retryAfterSeconds } : { allowed: true, retryAfter: null };
  },
};

/** @throws APIError 400 PASSWORD_NOT_ALLOWED when passwordRefusal refuses `password` */
function refuseUnfitPassword(password: unknown): void {
  const refusal = passwordRefusal(password);
  if (refusal) throw new APIError('BAD_REQUEST', { code: 'PASSWORD_NOT_ALLOWED', message: refusal });
}

/** @throws APIError 400 INVALID_NAME when displayNameRefusal refuses `name` (only when one is sent) */
function refuseUnfitName(name: unknown): void {
  const refusal = displayNameRefusal(name);
  if (refusal) throw new APIError('BAD_REQUEST', { code: 'INVALID_NAME', message: refusal });
}

/**
 * Before each auth route:
 * - `/sign-up/email`: 403 SIGN_UP_DISABLED unless sign-up is on; 403 EMAIL_DOMAIN_NOT_ALLOWED
 *   outside its domains (the admin's setting, else SIGN_UP_ENABLED / SIGN_UP_EMAIL_DOMAINS; see
 *   lib/security/sign-up.ts).
 * - `/sign-in/email`: 429 ACCOUNT_LOCKED while the account is locked (the password is not even
 *   checked, so guessing stops).
 * - `/sign-up/email` and `/change-password`: 400 PASSWORD_NOT_ALLOWED for a password of only
 *   spaces or with a control character (passwordRefusal).
 * - `/sign-up/email` and `/update-user` (the account's own name): 400 INVALID_NAME for a display
 *   name that is empty, over 100 characters or holds a line break or control character
 *   (displayNameRefusal, lib/auth/name-rules.ts).
 * - `/change-password`: 429 ACCOUNT_LOCKED while the signed-in account is locked (a wrong current
 *   password counts as a failed sign-in, so a stolen session cannot guess it either); 400
 *   PASSWORD_UNCHANGED when the new password is the current one;
 *   `revokeOtherSessions` defaults to true (only an explicit `false` keeps the other sessions), so
 *   a stolen session dies with the old password.
 */
export const beforeAuthRoute = createAuthMiddleware(async (ctx) => {
  if (ctx.path === '/sign-up/email') {
    const refusal = await signUpRefusal(String(ctx.body?.email ?? ''));
    if (refusal === 'SIGN_UP_DISABLED') {
      throw new APIError('FORBIDDEN', { code: refusal, message: 'Creating your own account is turned off here; ask an administrator for one.' });
    }
    if (refusal) throw new APIError('FORBIDDEN', { code: refusal, message: 'Accounts can only be created with an email address of an allowed domain.' });
    // Who someone is (role, deactivation) is never taken from a sign-up body: such fields are
    // dropped (the admin plugin would refuse the whole request with 400), and the account is a user.
    // Removed from the request's own body object: a body returned from this hook would be merged
    // into it, which can add or change fields but never remove one.
    const body = (ctx.body ?? {}) as Record<string, unknown>;
    for (const key of ['role', 'banned', 'banReason', 'banExpires']) delete body[key];
    refuseUnfitPassword(body.password);
    refuseUnfitName(body.name);
  }
  if (ctx.path === '/update-user') refuseUnfitName(ctx.body?.name);
  if (ctx.path === '/sign-in/email') await refuseWhileLocked(accountKey(ctx.body?.email));
  if (ctx.path === '/change-password') {
    const session = await getSessionFromCtx(ctx);
    if (session) await refuseWhileLocked(accountKey(session.user.email));
    refuseUnfitPassword(ctx.body?.newPassword);
    if (typeof ctx.body?.newPassword === 'string' && ctx.body.newPassword === ctx.body.currentPassword) {
      throw new APIError('BAD_REQUEST', { code: 'PASSWORD_UNCHANGED', message: 'The new password is the same as the current one.' });
    }
    if (ctx.body && ctx.body.revokeOtherSessions === undefined) {
      return { context: { body: { ...ctx.body, revokeOtherSessions: true } } };
    }
  }
});

/**
 * After `/sign-in/email`: a wrong password counts towards the lockout; a success clears the count
 * and is an audit entry (`auth.signed_in`).
 * After `/change-password`: a wrong current password (400 INVALID_PASSWORD) counts towards the
 * signed-in account's lockout, and the try that locks it is answered 429 ACCOUNT_LOCKED; a change
 * clears the count and the temporary mark (`passwordTemporary`), revokes every API key of the
 * person, and is an audit entry (`auth.password_changed`, with whether the other sessions were
 * signed out and `keysRevoked`, how many keys).
 */
export const afterAuthRoute = createAuthMiddleware(async (ctx) => {
  if (ctx.path === '/change-password') return afterPasswordChange(ctx);
  if (ctx.path !== '/sign-in/email') return;
  const email = accountKey(ctx.body?.email);
  if (!email) return;
  const returned = ctx.context.returned;
  if (isAPIError(returned)) {
    if (returned.statusCode === 401) await recordFailure(email);
    return;
  }
  await clearSignInFailures(email);
  const user = ctx.context.newSession?.user as { id: string; role?: string | null } | undefined;
  if (user) await recordAuditEvent({ action: 'auth.signed_in', actor: { id: user.id, role: user.role ?? 'user' }, target: { type: 'user', id: user.id } });
});

/** `/change-password`'s part of afterAuthRoute. */
async function afterPasswordChange(ctx: Parameters<Parameters<typeof createAuthMiddleware>[0]>[0]): Promise<void> {
  const returned = ctx.context.returned;
  if (isAPIError(returned)) {
    if ((returned.body as { code?: string } | undefined)?.code !== 'INVALID_PASSWORD') return;
    const session = await getSessionFromCtx(ctx);
    const until = session ? await recordFailure(accountKey(session.user.email)) : null;
    // The try that locks the account says so at once, not only the next one.
    if (until) throw lockedError(until);
    return;
  }
  const changed = returned as { token?: string | null; user?: { id?: string; email?: string } } | undefined;
  const id = changed?.user?.id;
  if (!id) return;
  // A fresh password starts a fresh count: one slip with the old one elsewhere must not lock it.
  if (changed.user?.email) await clearSignInFailures(changed.user.email);
  // The password is the person's own now (no longer an admin's temporary one).
  const user = await prisma().user.update({ where: { id }, data: { passwordTemporary: false }, select: { role: true } });
  // A key made by someone who had the old password must not outlive it (issue #30 item 8).
  const keysRevoked = await disableAllKeysOf(id);
  await recordAuditEvent({
    action: 'auth.password_changed',
    actor: { id, role: user.role },
    target: { type: 'user', id },
    details: { otherSessionsSignedOut: Boolean(changed.token), keysRevoked },
  });
}
