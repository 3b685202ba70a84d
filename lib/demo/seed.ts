import { hashPassword } from 'better-auth/crypto';
import pg from 'pg';
import { policiesSchema } from '../policies/rules';
import { DEMO_POLICIES } from './policies';
import { displayNameRefusal } from '../auth/name-rules';

/** Password of every demo account (local use only; listed in the README). */
export const DEMO_PASSWORD = 'countersign-demo';

/** Demo accounts: two end users, two reviewers (four-eyes needs a second one) and an admin. */
export const DEMO_ACCOUNTS = [
  { id: 'user-ada', name: 'Ada', email: 'ada@example.com', role: 'user' },
  { id: 'user-ben', name: 'Ben', email: 'ben@example.com', role: 'user' },
  { id: 'reviewer-rita', name: 'Rita', email: 'rita@example.com', role: 'reviewer' },
  { id: 'reviewer-sam', name: 'Sam', email: 'sam@example.com', role: 'reviewer' },
  { id: 'admin-alex', name: 'Alex', email: 'alex@example.com', role: 'admin' },
] as const;

/** Demo customers, orders and records (behaviour §9): every tool acts on real rows. */
export const SEED = {
  customers: [
    { id: 'cus-1', name: 'Grace Hopper', email: 'grace@example.com', tier: 'gold' },
    { id: 'cus-2', name: 'Alan Turing', email: 'alan@example.com', tier: 'silver' },
    { id: 'cus-3', name: 'Katherine Johnson', email: 'katherine@example.com', tier: 'gold' },
    { id: '12345', name: 'Ada Lovelace', email: 'ada@example.com', tier: 'platinum' },
  ],
  orders: [
    { id: 'ord-1042', customerId: 'cus-1', amount: 480, status: 'paid' },
    { id: 'ord-1043', customerId: 'cus-1', amount: 60, status: 'paid' },
    { id: 'ord-2001', customerId: 'cus-2', amount: 1200, status: 'paid' },
    { id: 'ord-3001', customerId: 'cus-3', amount: 95, status: 'shipped' },
  ],
  records: Array.from({ length: 50 }, (_, i) => ({
    id: `rec-${i + 1}`,
    title: `Record ${i + 1}`,
    body: `Demo record number ${i + 1}.`,
  })),
};

/**
 * Inserts the demo rows that are missing (existing rows are left as they are).
 *
 * A demo account whose email (compared without case) already belongs to another account — the
 * first admin made with `npm run admin:create`, or a person added at /admin/users — is skipped, with
 * one line through `options.log`: that account keeps its role, name and password, and the demo id
 * gets no row (nothing the seed writes refers to it; sign-in rows are written only with their user).
 * @param databaseUrl PostgreSQL URL
 * @param options.accounts also the demo accounts, whose password is public (default true; `npm
 *   start` passes false unless COUNTERSIGN_DEMO_ACCOUNTS is set)
 * @param options.log where the line about a skipped demo account goes (default console.log)
 * @returns how many rows were inserted
 */
export async function seed(databaseUrl: string, options: { accounts?: boolean; log?: (line: string) => void } = {}): Promise<number> {
  const accounts = options.accounts ?? true;
  const log = options.log ?? console.log;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let inserted = 0;
  try {
    await client.query('BEGIN');
    for (const c of SEED.customers) {
      const r = await client.query(
        'INSERT INTO customers (id, name, email, tier) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING',
        [c.id, c.name, c.email, c.tier],
      );
      inserted += r.rowCount ?? 0;
    }
    for (const o of SEED.orders) {
      const r = await client.query(
        'INSERT INTO orders (id, customer_id, amount, status) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING',
        [o.id, o.customerId, o.amount, o.status],
      );
      inserted += r.rowCount ?? 0;
    }
    for (const account of accounts ? DEMO_ACCOUNTS : []) {
      // The one rule for display names (lib/auth/name-rules.ts) holds for the demo accounts too.
      const refusal = displayNameRefusal(account.name);
      if (refusal) throw new Error(`The demo account ${account.email} has a name that is not allowed: ${refusal}`);
      // Never onto a real account with a demo email: with no conflict target a taken id and a taken
      // email (users_email_key) both insert nothing, and NOT EXISTS also skips the email in other letters.
      const r = await client.query(
        `INSERT INTO users (id, name, email, email_verified, role)
         SELECT $1, $2, $3::text, true, $4 WHERE NOT EXISTS (SELECT 1 FROM users WHERE lower(email) = lower($3) AND id <> $1)
         ON CONFLICT DO NOTHING`,
        [account.id, account.name, account.email, account.role],
      );
      if (!r.rowCount) {
        const owner = await client.query('SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2 LIMIT 1', [account.email, account.id]);
        if (owner.rowCount) {
          log(`Skipped the demo account ${account.email}: an account with that email already exists, and it was left as it is (role, name, password).`);
        }
      } else {
        // better-auth's own password hash, so sign-in works as for any account.
        await client.query(
          `INSERT INTO accounts (id, account_id, provider_id, user_id, password) VALUES ($1, $2, 'credential', $2, $3)`,
          [`${account.id}-credential`, account.id, await hashPassword(DEMO_PASSWORD)],
        );
      }
      inserted += r.rowCount ?? 0;
    }
    for (const rec of SEED.records) {
      const r = await client.query('INSERT INTO records (id, title, body) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [
        rec.id,
        rec.title,
        rec.body,
      ]);
      inserted += r.rowCount ?? 0;
    }
    // The demo policies become version 1 of a database that has none (a saved version is never replaced).
    const policies = await client.query(
      `INSERT INTO policy_versions (version, rules, changed_by, note)
       SELECT 1, $1::jsonb, 'seed', 'Demo policies' WHERE NOT EXISTS (SELECT 1 FROM policy_versions)
       ON CONFLICT (version) DO NOTHING`,
      [JSON.stringify(policiesSchema.parse({ rules: DEMO_POLICIES }).rules)],
    );
    inserted += policies.rowCount ?? 0;
    await client.query('COMMIT');
    return inserted;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * What `npm run dev` and `npm start` do before the server starts: seed a fresh database, and say
 * whether anyone can sign in. Only a fresh database (no policy version yet: the seed writes the
 * first, and none is ever deleted) is seeded by itself, so records deleted through approvals stay
 * deleted across restarts; `npm run db:seed` restores the demo rows on purpose.
 * @param databaseUrl PostgreSQL URL (migrated)
 * @param options.accounts create the demo accounts too (see `seed`)
 * @param options.log where the line about a skipped demo account goes (see `seed`)
 * @returns `seeded`: rows inserted, or null when the database was not fresh; `hasAccounts`:
 *   whether any account exists now
 */
export async function seedFreshDatabase(
  databaseUrl: string,
  options: { accounts: boolean; log?: (line: string) => void },
): Promise<{ seeded: number | null; hasAccounts: boolean }> {
  const any = async (table: 'users' | 'policy_versions') => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(`SELECT 1 FROM ${table} LIMIT 1`)).rowCount === 1;
    } finally {
      await client.end();
    }
  };
  const seeded = (await any('policy_versions')) ? null : await seed(databaseUrl, options);
  return { seeded, hasAccounts: await any('users') };
}
