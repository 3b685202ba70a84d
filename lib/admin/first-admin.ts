import 'server-only';
import { randomUUID } from 'node:crypto';
import { hashPassword } from 'better-auth/crypto';
import { recordAuditEvent } from '@/lib/audit/events';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { ApiError } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';
import { createUserSchema, temporaryPassword } from './users';

/**
 * Creates an admin account from the command line (`npm run admin:create`). `npm start` does not
 * create the demo accounts (their password is in the README), so a production database starts with
 * no account at all; this makes its first admin, who then adds everyone else at /admin/users.
 * The account is written as better-auth writes one (its own password hash, a `credential`
 * account), with a `user.created` audit entry by the system, all in one transaction.
 *
 * @param input.email the sign-in email (trimmed, lower-cased, as /admin/users takes it)
 * @param input.name the display name (1–100 characters)
 * @returns the new account's id and its temporary password (24 characters; shown once, never stored in clear)
 * @throws ApiError 400 BAD_REQUEST (email or name not valid), 409 EMAIL_TAKEN
 */
export async function createAdminAccount(
  input: { email: string; name: string },
  db: PrismaClient = prisma(),
): Promise<{ userId: string; email: string; temporaryPassword: string }> {
  const parsed = createUserSchema.safeParse({ ...input, role: 'admin' });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(400, 'BAD_REQUEST', `${issue.path.join('.')}: ${issue.message}`);
  }
  const { email, name } = parsed.data;
  const password = temporaryPassword();
  const hash = await hashPassword(password);
  const userId = randomUUID();
  try {
    await db.$transaction(async (tx) => {
      await tx.user.create({ data: { id: userId, name, email, emailVerified: true, role: 'admin', passwordTemporary: true } });
      await tx.account.create({ data: { id: randomUUID(), accountId: userId, providerId: 'credential', userId, password: hash } });
      await recordAuditEvent({ action: 'user.created', actor: null, target: { type: 'user', id: userId }, details: { email, role: 'admin', via: 'admin:create' } }, tx);
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') throw new ApiError(409, 'EMAIL_TAKEN', 'An account with this email already exists.');
    throw error;
  }
  return { userId, email, temporaryPassword: password };
}

/**
 * Whether the database has any account at all: the sign-in page of a fresh production database
 * (no account yet) says how the first admin is made instead of offering a form nobody can use.
 *
 * @returns true when at least one user row exists (deactivated ones included)
 */
export async function accountsExist(db: PrismaClient = prisma()): Promise<boolean> {
  return (await db.user.findFirst({ select: { id: true } })) !== null;
}

/**
 * The demo accounts that exist in this database, for the sign-in page's list: a demo account the
 * seed skipped (its email taken by a real account) or never created (`npm start` without
 * COUNTERSIGN_DEMO_ACCOUNTS) is not offered with the public demo password.
 *
 * @param accounts the demo accounts as the seed defines them (id and email)
 * @returns those whose row exists with that id and email, in the given order
 */
export async function existingDemoAccounts<A extends { id: string; email: string }>(accounts: readonly A[], db: PrismaClient = prisma()): Promise<A[]> {
  const rows = await db.user.findMany({ where: { id: { in: accounts.map((account) => account.id) } }, select: { id: true, email: true } });
  const present = new Set(rows.map((row) => `${row.id}\n${row.email}`));
  return accounts.filter((account) => present.has(`${account.id}\n${account.email}`));
}
