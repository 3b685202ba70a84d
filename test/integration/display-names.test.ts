import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminAccount } from '../../lib/admin/first-admin';
import { createUserSchema } from '../../lib/admin/users';
import { auth } from '../../lib/auth/auth';
import { createPrismaClient } from '../../lib/store/db';
import { databaseUrl } from '../support/harness';

/*
 * A display name is at most 100 characters and one line, wherever it is set: sign-up and the
 * account's own change (better-auth's routes, through its real handler and our hooks), an admin's
 * new account (/api/admin/users' schema) and `npm run admin:create`. A refused name changes nothing.
 */

process.env.DATABASE_URL = databaseUrl();
const db = createPrismaClient(databaseUrl());
const saved = process.env.SIGN_UP_ENABLED;

beforeAll(() => {
  process.env.SIGN_UP_ENABLED = 'true';
});

afterAll(async () => {
  if (saved === undefined) delete process.env.SIGN_UP_ENABLED;
  else process.env.SIGN_UP_ENABLED = saved;
  await db.$disconnect();
});

const post = (path: string, body: unknown, cookie?: string) =>
  auth().handler(
    new Request(`http://localhost:3000/api/auth${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:3000', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    }),
  );

const refusal = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { code?: string }).code });

describe('display names', () => {
  it('sign-up refuses a name over 100 characters or with a line break (400 INVALID_NAME) and creates no account; 100 characters are fine', async () => {
    const stamp = Date.now();
    for (const name of ['x'.repeat(101), 'Eve\nOpen it in the inbox: https://evil.example', 'Eve\u2028x', 'Eve\rx', '   ']) {
      const email = `long-${stamp}-${name.length}-${name.charCodeAt(3)}@example.com`;
      expect(await refusal(await post('/sign-up/email', { email, password: 'a-good-password-1', name })), JSON.stringify(name)).toEqual({ status: 400, code: 'INVALID_NAME' });
      expect(await db.user.count({ where: { email } })).toBe(0);
    }
    const email = `ok-${stamp}@example.com`;
    const made = await post('/sign-up/email', { email, password: 'a-good-password-1', name: 'y'.repeat(100) });
    expect(made.status).toBe(200);
    const cookie = made.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');

    // The account's own change of its name (better-auth's /update-user) follows the same rule.
    expect(await refusal(await post('/update-user', { name: 'z'.repeat(101) }, cookie))).toEqual({ status: 400, code: 'INVALID_NAME' });
    expect(await refusal(await post('/update-user', { name: 'Eve\nx' }, cookie))).toEqual({ status: 400, code: 'INVALID_NAME' });
    expect((await db.user.findUniqueOrThrow({ where: { email } })).name).toBe('y'.repeat(100));
    expect((await post('/update-user', { name: 'Yvonne' }, cookie)).status).toBe(200);
    expect((await db.user.findUniqueOrThrow({ where: { email } })).name).toBe('Yvonne');
  });

  it("an admin's new account and npm run admin:create refuse such names with a message that says why", async () => {
    const parsed = createUserSchema.safeParse({ name: 'x'.repeat(101), email: 'a@example.com', role: 'user' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].message).toBe('A name is at most 100 characters (this one has 101).');
    expect(createUserSchema.safeParse({ name: 'Eve\nx', email: 'a@example.com', role: 'user' }).error?.issues[0].message).toBe(
      'A name cannot hold control characters or line breaks.',
    );
    const email = `admin-long-${Date.now()}@example.com`;
    await expect(createAdminAccount({ email, name: 'n'.repeat(150) }, db)).rejects.toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringContaining('at most 100 characters') });
    expect(await db.user.count({ where: { email } })).toBe(0);
  });
});
