import { verifyPassword } from 'better-auth/crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminAccount } from '../../lib/admin/first-admin';
import { DEMO_ACCOUNTS, DEMO_PASSWORD, seed, seedFreshDatabase } from '../../lib/demo/seed';
import { createPrismaClient } from '../../lib/store/db';
import { createScratchDatabase } from '../support/scratch-db';

/*
 * The demo accounts (public password) must never take over a real account that already has a demo
 * email: `npm run admin:create -- --email alex@example.com` on a database that `npm start` had not
 * seeded yet, then `COUNTERSIGN_DEMO_ACCOUNTS=true npm start`, crashed on users_email_key (the
 * insert was ON CONFLICT (id) only). On a database of its own, so "fresh" means what it says.
 */

let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let db: ReturnType<typeof createPrismaClient>;

beforeAll(async () => {
  scratch = await createScratchDatabase('demo_email_taken_test');
  db = createPrismaClient(scratch.url, { maxConnections: 2 });
});
afterAll(async () => {
  await db.$disconnect();
  await scratch.drop();
});

const rows = async (sql: string, params: unknown[] = []) => {
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
};

/** Everything about an account a seed could change: its user row and its sign-in rows. */
const snapshot = (email: string) => db.user.findUniqueOrThrow({ where: { email }, include: { accounts: true, sessions: true, apiKeys: true } });

describe('seeding the demo accounts when a real account has a demo email', () => {
  it('skips that demo account with one line, leaves the real admin as it was, and creates the other four', async () => {
    // admin:create with the demo admin's email, before the first `npm start`.
    const created = await createAdminAccount({ email: 'alex@example.com', name: 'Real Alex' }, db);
    const before = await snapshot('alex@example.com');
    expect(before).toMatchObject({ id: created.userId, role: 'admin', name: 'Real Alex' });

    const lines: string[] = [];
    const fresh = await seedFreshDatabase(scratch.url, { accounts: true, log: (line) => lines.push(line) });
    expect(fresh.seeded).toBeGreaterThan(0);
    expect(fresh.hasAccounts).toBe(true);
    expect(lines).toEqual([
      'Skipped the demo account alex@example.com: an account with that email already exists, and it was left as it is (role, name, password).',
    ]);

    // The real account: same row, same password (the demo one does not sign in), no demo credential.
    const after = await snapshot('alex@example.com');
    expect(after).toEqual(before);
    expect(after.accounts).toHaveLength(1);
    expect(await verifyPassword({ hash: after.accounts[0].password!, password: created.temporaryPassword })).toBe(true);
    expect(await verifyPassword({ hash: after.accounts[0].password!, password: DEMO_PASSWORD })).toBe(false);
    expect(await rows(`SELECT id FROM users WHERE id = 'admin-alex'`)).toEqual([]);
    expect(await rows(`SELECT id FROM accounts WHERE id = 'admin-alex-credential' OR user_id = 'admin-alex'`)).toEqual([]);

    // The other demo accounts exist and sign in with the demo password.
    for (const demo of DEMO_ACCOUNTS.filter((account) => account.email !== 'alex@example.com')) {
      const user = await db.user.findUniqueOrThrow({ where: { email: demo.email }, include: { accounts: true } });
      expect(user).toMatchObject({ id: demo.id, role: demo.role, name: demo.name });
      expect(user.accounts).toHaveLength(1);
      expect(await verifyPassword({ hash: user.accounts[0].password!, password: DEMO_PASSWORD })).toBe(true);
    }
    // The rest of the seed ran: demo rows and policy version 1.
    expect(await rows('SELECT version FROM policy_versions')).toEqual([{ version: 1 }]);
    expect(Number((await rows('SELECT count(*) AS n FROM records'))[0].n)).toBe(50);
  });

  it('`npm run db:seed` later does the same, and an email that differs only in case is skipped too', async () => {
    // Someone's account made with a demo reviewer's email in other letters (better-auth lower-cases
    // emails, so the demo account would be the one reached by signing in as rita@example.com).
    await rows(
      `INSERT INTO users (id, name, email, email_verified, role) VALUES ('person-rita', 'Rita Real', 'Rita@Example.com', true, 'user')`,
    );
    await rows(`DELETE FROM users WHERE id = 'reviewer-rita'`);
    const alex = await snapshot('alex@example.com');
    const rita = await snapshot('Rita@Example.com');

    const lines: string[] = [];
    const inserted = await seed(scratch.url, { log: (line) => lines.push(line) });
    expect(inserted).toBe(0);
    expect(lines).toEqual([
      'Skipped the demo account rita@example.com: an account with that email already exists, and it was left as it is (role, name, password).',
      'Skipped the demo account alex@example.com: an account with that email already exists, and it was left as it is (role, name, password).',
    ]);
    expect(await snapshot('alex@example.com')).toEqual(alex);
    expect(await snapshot('Rita@Example.com')).toEqual(rita);
    expect(await rows(`SELECT id FROM users WHERE id IN ('reviewer-rita', 'admin-alex')`)).toEqual([]);
    // No sign-in row points at a user that is not there (the foreign keys hold; nothing dangles).
    expect(await rows('SELECT a.id FROM accounts a LEFT JOIN users u ON u.id = a.user_id WHERE u.id IS NULL')).toEqual([]);
    expect(Number((await rows('SELECT count(*) AS n FROM users'))[0].n)).toBe(5);
  });
});
