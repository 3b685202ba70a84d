import { verifyPassword } from 'better-auth/crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminAccount } from '../../lib/admin/first-admin';
import { verifyAuditChain } from '../../lib/audit/verify';
import { seedFreshDatabase } from '../../lib/demo/seed';
import { ApiError } from '../../lib/http/errors';
import { createPrismaClient } from '../../lib/store/db';
import { createScratchDatabase } from '../support/scratch-db';

/*
 * A production start (`npm start`) seeds a fresh database without the demo accounts, whose password
 * is public; `npm run admin:create` makes its first admin. On a database of its own, so "fresh" and
 * "no accounts" mean what they say.
 */

let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let db: ReturnType<typeof createPrismaClient>;

beforeAll(async () => {
  scratch = await createScratchDatabase('first_admin_test');
  db = createPrismaClient(scratch.url, { maxConnections: 2 });
});
afterAll(async () => {
  await db.$disconnect();
  await scratch.drop();
});

const count = async (sql: string) => {
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  try {
    return Number((await client.query(sql)).rows[0].n);
  } finally {
    await client.end();
  }
};

describe('a production database starts without accounts', () => {
  it('npm start seeds the demo rows but no account; a second start seeds nothing', async () => {
    const first = await seedFreshDatabase(scratch.url, { accounts: false });
    expect(first.seeded).toBeGreaterThan(0);
    expect(first).toMatchObject({ hasAccounts: false });
    expect(await count('SELECT count(*) AS n FROM users')).toBe(0);
    expect(await count('SELECT count(*) AS n FROM accounts')).toBe(0);
    expect(await count('SELECT count(*) AS n FROM customers')).toBeGreaterThan(0);
    expect(await seedFreshDatabase(scratch.url, { accounts: false })).toEqual({ seeded: null, hasAccounts: false });
  });

  it('admin:create makes an admin whose temporary password signs in, with an audit entry in the chain', async () => {
    const created = await createAdminAccount({ email: '  Owner@Example.com ', name: 'Owner' }, db);
    expect(created.email).toBe('owner@example.com');
    expect(created.temporaryPassword).toMatch(/^[\w-]{24}$/);
    const user = await db.user.findUniqueOrThrow({ where: { email: 'owner@example.com' }, include: { accounts: true } });
    expect(user).toMatchObject({ id: created.userId, role: 'admin', name: 'Owner', banned: false, passwordTemporary: true });
    expect(user.accounts).toHaveLength(1);
    expect(user.accounts[0]).toMatchObject({ providerId: 'credential', accountId: created.userId });
    expect(user.accounts[0].password).not.toContain(created.temporaryPassword);
    expect(await verifyPassword({ hash: user.accounts[0].password!, password: created.temporaryPassword })).toBe(true);
    const event = await db.auditEvent.findFirstOrThrow({ where: { action: 'user.created', targetId: created.userId } });
    expect(event).toMatchObject({ actorId: null, details: { email: 'owner@example.com', role: 'admin', via: 'admin:create' } });
    expect(await verifyAuditChain(db)).toMatchObject({ ok: true });
    expect(await seedFreshDatabase(scratch.url, { accounts: false })).toEqual({ seeded: null, hasAccounts: true });
  });

  it('refuses a taken email and a bad one, and writes nothing', async () => {
    const users = await count('SELECT count(*) AS n FROM users');
    const events = await count('SELECT count(*) AS n FROM audit_events');
    const taken = await createAdminAccount({ email: 'owner@example.com', name: 'Twin' }, db).catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(ApiError);
    expect(taken).toMatchObject({ status: 409, code: 'EMAIL_TAKEN' });
    const bad = await createAdminAccount({ email: 'not an email', name: 'X' }, db).catch((error: unknown) => error);
    expect(bad).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect((bad as Error).message).toMatch(/^email: /);
    expect(await count('SELECT count(*) AS n FROM users')).toBe(users);
    expect(await count('SELECT count(*) AS n FROM audit_events')).toBe(events);
  });
});
