import 'server-only';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { recordAuditEvent } from '@/lib/audit/events';
import { disableAllKeysOf } from '@/lib/auth/api-keys';
import { auth } from '@/lib/auth/auth';
import { displayNameSchema } from '@/lib/auth/name-rules';
import { clearSignInFailures } from '@/lib/auth/guards';
import { ApiError } from '@/lib/http/errors';
import { releaseUndecidableAssignments, type ReleaseReason } from '@/lib/inbox/assignment';
import { Prisma } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { withdrawUndecidableVotes } from '@/lib/store/quorum-votes';

/**
 * User administration for admins, on better-auth's admin plugin: create accounts, change roles,
 * deactivate (the plugin's "ban": sign-in refused, sessions deleted; we also disable the person's
 * API keys), reactivate, and reset passwords. Accounts are never deleted: decisions name people.
 * There is always at least one active admin: changes that would leave none are refused (409
 * LAST_ADMIN), decided under one advisory lock so two admins demoting each other cannot both win.
 * Every change is an audit entry (lib/audit/events.ts).
 */

export const ROLES = ['user', 'reviewer', 'admin'] as const;
export type Role = (typeof ROLES)[number];
type Admin = { id: string; role: Role };

/** Lock id that serialises changes which could remove the last active admin. */
const ADMIN_CHANGE_LOCK = 7_441_001;

/** One account as the admin page lists it. */
export interface ManagedUser {
  id: string;
  name: string;
  email: string;
  role: Role;
  active: boolean;
  /** ISO 8601 */
  createdAt: string;
  /** API keys that work now (not revoked). */
  activeKeys: number;
  /** The password is one an admin chose (new account, reset), not yet changed by its owner. */
  passwordTemporary: boolean;
  /** ISO 8601: until when sign-in is locked after wrong passwords (lib/auth/guards.ts), or null. A reset lifts it. */
  lockedUntil: string | null;
}

/** Every account (or the one with `id`), by name, with its active keys, temporary mark and sign-in lock. */
export async function listUsers(id?: string): Promise<ManagedUser[]> {
  const users = await prisma().user.findMany({
    where: id === undefined ? undefined : { id },
    orderBy: [{ name: 'asc' }, { email: 'asc' }],
    select: {
      id: true,
      name: true,
      email: true,
      role: true,
      banned: true,
      createdAt: true,
      passwordTemporary: true,
      _count: { select: { apiKeys: { where: { enabled: true } } } },
    },
  });
  // Locks are kept by the lower-cased email the sign-in was tried with (lib/auth/guards.ts).
  const locks = await prisma().signInFailure.findMany({
    where: { email: { in: users.map((user) => user.email.toLowerCase()) }, lockedUntil: { gt: new Date() } },
    select: { email: true, lockedUntil: true },
  });
  const lockedUntil = new Map(locks.map((lock) => [lock.email, lock.lockedUntil!.toISOString()]));
  return users.map((user) => ({
    id: user.id,
    name: user.name,
    email: user.email,
    role: (ROLES as readonly string[]).includes(user.role) ? (user.role as Role) : 'user',
    active: !user.banned,
    createdAt: user.createdAt.toISOString(),
    activeKeys: user._count.apiKeys,
    passwordTemporary: user.passwordTemporary,
    lockedUntil: lockedUntil.get(user.email.toLowerCase()) ?? null,
  }));
}

export const createUserSchema = z.object({
  name: displayNameSchema,
  email: z.string().trim().toLowerCase().email().max(254),
  role: z.enum(ROLES),
});

/** A password for a new or reset account: 18 random bytes, base64url (24 characters). */
export function temporaryPassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * Creates an account with a temporary password (shown to the admin once, to hand over), marked as
 * temporary until its owner changes it.
 * @returns the account and its temporary password
 * @throws ApiError 409 EMAIL_TAKEN
 */
export async function createUser(admin: Admin, input: z.infer<typeof createUserSchema>, headers: Headers) {
  if (await prisma().user.findUnique({ where: { email: input.email }, select: { id: true } })) {
    throw new ApiError(409, 'EMAIL_TAKEN', 'An account with this email already exists.');
  }
  const password = temporaryPassword();
  const { user } = await auth().api.createUser({ headers, body: { email: input.email, password, name: input.name, role: input.role } });
  await prisma().user.update({ where: { id: user.id }, data: { passwordTemporary: true } });
  await recordAuditEvent({ action: 'user.created', actor: admin, target: { type: 'user', id: user.id }, details: { email: input.email, role: input.role } });
  return { user: await managedUser(user.id), temporaryPassword: password };
}

export const updateUserSchema = z.union(
  [
    z.object({ role: z.enum(ROLES) }).strict(),
    z.object({ active: z.literal(false), reason: z.string().trim().max(500).optional() }).strict(),
    z.object({ active: z.literal(true) }).strict(),
  ],
  { error: `send one change: { role } with one of ${ROLES.join(', ')}; { active: false, reason? }; or { active: true }` },
);

/**
 * Changes a role, or deactivates / reactivates an account.
 * - role: the last active admin keeps theirs (409 LAST_ADMIN).
 * - deactivate: not yourself (409 CANNOT_DEACTIVATE_SELF), not the last active admin; sessions
 *   are deleted and API keys disabled at once. Their waiting calls stay in the inbox, decidable by reviewers.
 * - Both: the calls assigned to the person that they can no longer decide (all of them when
 *   deactivated or made a user; those escalated to admins when no longer an admin) are released in
 *   the same transaction, back to "Unassigned" (lib/inbox/assignment.ts). The audit entry counts
 *   them (`assignmentsReleased`, when any). In the same transaction their votes leave the waiting
 *   quorum calls they can no longer decide (lib/store/quorum-votes.ts): those calls need another
 *   reviewer's vote, and the inbox says whose vote no longer counts.
 * @returns the account as it is now
 * @throws ApiError 404 NOT_FOUND, 409 LAST_ADMIN, 409 CANNOT_DEACTIVATE_SELF, 409 NO_CHANGE
 */
export async function updateUser(admin: Admin, userId: string, change: z.infer<typeof updateUserSchema>, headers: Headers): Promise<ManagedUser> {
  const before = await prisma().user.findUnique({ where: { id: userId }, select: { role: true, banned: true } });
  if (!before) throw new ApiError(404, 'NOT_FOUND', 'There is no such account.');
  if ('role' in change) {
    if (before.role === change.role) throw new ApiError(409, 'NO_CHANGE', `This account already has the role ${change.role}.`);
    const released = await guardedChange(userId, change.role !== 'admin', Prisma.sql`UPDATE users SET role = ${change.role}, updated_at = now() WHERE id = ${userId}`, {
      admin,
      reason: 'role_changed',
    });
    await recordAuditEvent({
      action: 'user.role_changed',
      actor: admin,
      target: { type: 'user', id: userId },
      details: { from: before.role, to: change.role, ...(released > 0 ? { assignmentsReleased: released } : {}) },
    });
  } else if (change.active === false) {
    if (userId === admin.id) throw new ApiError(409, 'CANNOT_DEACTIVATE_SELF', 'You cannot deactivate your own account; ask another admin.');
    if (before.banned) throw new ApiError(409, 'NO_CHANGE', 'This account is already deactivated.');
    const reason = change.reason || 'Deactivated by an administrator';
    const released = await guardedChange(userId, true, Prisma.sql`UPDATE users SET banned = true, ban_reason = ${reason}, updated_at = now() WHERE id = ${userId}`, {
      admin,
      reason: 'deactivated',
    });
    // The plugin's ban: marks the account and deletes every session of it.
    await auth().api.banUser({ headers, body: { userId, banReason: reason } });
    const keysRevoked = await disableAllKeysOf(userId);
    await recordAuditEvent({ action: 'user.deactivated', actor: admin, target: { type: 'user', id: userId }, details: { reason, keysRevoked, ...(released > 0 ? { assignmentsReleased: released } : {}) } });
  } else {
    if (!before.banned) throw new ApiError(409, 'NO_CHANGE', 'This account is already active.');
    await auth().api.unbanUser({ headers, body: { userId } });
    await recordAuditEvent({ action: 'user.reactivated', actor: admin, target: { type: 'user', id: userId } });
  }
  return managedUser(userId);
}

/**
 * Gives an account a new temporary password (shown to the admin once, marked as temporary), signs it
 * out everywhere, revokes every API key of it (a key must not outlive the password of whoever made
 * it; the audit entry counts them as `keysRevoked`) and lifts a lock of failed sign-ins.
 * @throws ApiError 404 NOT_FOUND
 */
export async function resetPassword(admin: Admin, userId: string, headers: Headers): Promise<{ temporaryPassword: string }> {
  const account = await prisma().user.findUnique({ where: { id: userId }, select: { email: true } });
  if (!account) throw new ApiError(404, 'NOT_FOUND', 'There is no such account.');
  const password = temporaryPassword();
  await auth().api.setUserPassword({ headers, body: { userId, newPassword: password } });
  await auth().api.revokeUserSessions({ headers, body: { userId } });
  await prisma().user.update({ where: { id: userId }, data: { passwordTemporary: true } });
  const keysRevoked = await disableAllKeysOf(userId);
  // The temporary password must work at once, also for an account locked by wrong passwords.
  await clearSignInFailures(account.email);
  await recordAuditEvent({ action: 'user.password_reset', actor: admin, target: { type: 'user', id: userId }, details: { keysRevoked } });
  return { temporaryPassword: password };
}

/**
 * Runs `update` in a transaction under the admin-change lock; when `removesAdmin` and the target is
 * an active admin, refuses unless another active admin remains. Then, in the same transaction,
 * releases the calls assigned to the person that they can no longer decide.
 * @returns how many calls were released
 * @throws ApiError 409 LAST_ADMIN
 */
async function guardedChange(userId: string, removesAdmin: boolean, update: Prisma.Sql, release: { admin: Admin; reason: ReleaseReason }): Promise<number> {
  return prisma().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ADMIN_CHANGE_LOCK})`;
    if (removesAdmin) {
      const [{ target, others }] = await tx.$queryRaw<{ target: boolean; others: number }[]>`
        SELECT EXISTS (SELECT 1 FROM users WHERE id = ${userId} AND role = 'admin' AND NOT banned) AS target,
               (SELECT count(*)::int FROM users WHERE role = 'admin' AND NOT banned AND id <> ${userId}) AS others`;
      if (target && others === 0) throw new ApiError(409, 'LAST_ADMIN', 'This is the last active admin; make someone else an admin first.');
    }
    await tx.$executeRaw(update);
    // A vote counts only while its reviewer can still decide the call (issue #30 item 8).
    await withdrawUndecidableVotes(tx, userId);
    return releaseUndecidableAssignments(tx, { userId, actor: release.admin, reason: release.reason });
  });
}

async function managedUser(userId: string): Promise<ManagedUser> {
  const [user] = await listUsers(userId);
  if (!user) throw new ApiError(404, 'NOT_FOUND', 'There is no such account.');
  return user;
}
