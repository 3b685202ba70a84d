import { BASE_URL, DEMO_PASSWORD } from './config';
import { ACCOUNTS, contextAs, expect, sessionCookie, test } from './support';
import { checkAccessible, DESKTOP, MOBILE } from './ui';

const signInStatus = async (email: string, password: string) =>
  (
    await fetch(`${BASE_URL}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: BASE_URL },
      body: JSON.stringify({ email, password }),
    })
  ).status;

test.describe('your account (/settings/password)', () => {
  test('a person changes their password: the account link leads there at 390 and 1280 px; a mismatch, a wrong current password and a locked account are refused with a sentence; a change signs out the other sessions and is audited', async ({
    browser,
    db,
  }) => {
    const person = await db.createAccount({ name: 'Nia' });
    const context = await contextAs(browser, person.email);
    const elsewhere = await sessionCookie(person.email);
    const page = await context.newPage();

    // Below 768 px the account link is an icon, named for assistive technology.
    await page.setViewportSize(MOBILE);
    await page.goto('/settings/keys');
    await page.getByRole('link', { name: 'Your account' }).click();
    await expect(page).toHaveURL(/\/settings\/password$/);
    await expect(page.getByRole('heading', { name: 'Password', exact: true })).toBeVisible();
    await expect(page.getByTestId('settings-tab-password')).toHaveAttribute('aria-current', 'page');
    await expect(page.getByTestId('account-identity')).toContainText(`Nia (${person.email})`);
    await expect(page.getByTestId('nav-account')).toHaveAttribute('aria-current', 'page');
    await checkAccessible(page, 'account-password');
    await page.setViewportSize(DESKTOP);
    await expect(page.getByTestId('signed-in-as')).toContainText('Signed in as Nia · User');
    await checkAccessible(page, 'account-password');

    const form = page.getByTestId('password-form');
    const fill = async (current: string, next: string, repeat = next) => {
      await form.getByLabel('Current password').fill(current);
      await form.getByLabel('New password', { exact: true }).fill(next);
      await form.getByLabel('Repeat the new password').fill(repeat);
      await page.getByTestId('password-submit').click();
    };

    // Refused in the page, nothing sent: the two new fields differ, only spaces, over 128 characters
    // (not cut to 128, which would store a password nobody typed). Editing a field clears the refusal.
    await fill(DEMO_PASSWORD, 'a-brand-new-secret', 'a-brand-new-secreT');
    await expect(page.getByTestId('password-error')).toHaveText('The new password and its repetition differ.');
    await form.getByLabel('Repeat the new password').fill('a-brand-new-secret');
    await expect(page.getByTestId('password-error')).toHaveCount(0);
    await fill(DEMO_PASSWORD, '          ');
    await expect(page.getByTestId('password-error')).toHaveText('A password cannot be only spaces or invisible characters.');
    await fill(DEMO_PASSWORD, 'x'.repeat(129));
    await expect(page.getByTestId('password-error')).toHaveText('The new password can have at most 128 characters.');
    await expect(form.getByLabel('New password', { exact: true })).toHaveValue('x'.repeat(129));

    // A wrong current password: refused by the server, and counted like a failed sign-in.
    await fill('not-my-password', 'a-brand-new-secret');
    await expect(page.getByTestId('password-error')).toContainText('Your current password is not right.');
    const [failures] = await db.query<{ failures: number }>('SELECT failures FROM sign_in_failures WHERE email = $1', [person.email]);
    expect(failures.failures).toBe(1);
    expect(await signInStatus(person.email, DEMO_PASSWORD)).toBe(200);

    // While the account is locked the password cannot be changed either.
    await db.query(
      `INSERT INTO sign_in_failures (email, failures, window_started_at, locked_until) VALUES ($1, 5, now(), now() + interval '5 minutes')
       ON CONFLICT (email) DO UPDATE SET locked_until = EXCLUDED.locked_until`,
      [person.email],
    );
    await fill(DEMO_PASSWORD, 'a-brand-new-secret');
    await expect(page.getByTestId('password-error')).toHaveText('Too many wrong passwords; this account is locked for 5 more minute(s).');
    await db.query('DELETE FROM sign_in_failures WHERE email = $1', [person.email]);

    // The change: the fields are emptied, this browser stays signed in, the other session ends.
    await fill(DEMO_PASSWORD, 'a-brand-new-secret');
    await expect(page.getByTestId('password-changed')).toHaveText('Password changed. Your other sessions are signed out. Your API keys were revoked; create new ones under API keys.');
    await expect(form.getByLabel('Current password')).toHaveValue('');
    await expect(page.getByTestId('password-error')).toHaveCount(0);
    const other = await fetch(`${BASE_URL}/api/threads`, { headers: { cookie: elsewhere } });
    expect(other.status).toBe(401);
    await page.reload();
    await expect(page.getByTestId('account-identity')).toBeVisible();
    expect(await signInStatus(person.email, DEMO_PASSWORD)).toBe(401);
    expect(await signInStatus(person.email, 'a-brand-new-secret')).toBe(200);

    const audit = await db.query<{ action: string; actor_id: string; target_id: string; details: unknown }>(
      `SELECT action, actor_id, target_id, details FROM audit_events WHERE actor_id = $1 AND action = 'auth.password_changed'`,
      [person.id],
    );
    expect(audit).toEqual([{ action: 'auth.password_changed', actor_id: person.id, target_id: person.id, details: { otherSessionsSignedOut: true, keysRevoked: 0 } }]);
    // The account's other page, its API keys, is one tab away.
    await page.getByTestId('settings-tab-keys').click();
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    await expect(page.getByTestId('nav-account')).toHaveAttribute('aria-current', 'page');
    await context.close();
  });

  test("the server's rules: the same password again and a NUL password are refused; the try that locks the account says so and the users list shows the lock; an admin's reset lifts it; a change clears the count", async ({ browser, db }) => {
    const person = await db.createAccount();
    const change = (cookie: string, currentPassword: string, newPassword: string) =>
      fetch(`${BASE_URL}/api/auth/change-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: BASE_URL, cookie },
        body: JSON.stringify({ currentPassword, newPassword }),
      });
    const refusal = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { code?: string }).code });
    let cookie = await sessionCookie(person.email);

    expect(await refusal(await change(cookie, DEMO_PASSWORD, DEMO_PASSWORD))).toEqual({ status: 400, code: 'PASSWORD_UNCHANGED' });
    expect(await refusal(await change(cookie, DEMO_PASSWORD, '\u0000'.repeat(8)))).toEqual({ status: 400, code: 'PASSWORD_NOT_ALLOWED' });
    expect(await refusal(await change(cookie, DEMO_PASSWORD, ' '.repeat(9)))).toEqual({ status: 400, code: 'PASSWORD_NOT_ALLOWED' });
    expect(await refusal(await change(cookie, DEMO_PASSWORD, '\u200b'.repeat(10)))).toEqual({ status: 400, code: 'PASSWORD_NOT_ALLOWED' });
    expect(await signInStatus(person.email, DEMO_PASSWORD)).toBe(200);

    // Four wrong current passwords are refused as such; the fifth locks the account and says so.
    for (let i = 0; i < 4; i += 1) expect(await refusal(await change(cookie, `wrong-${i}-password`, 'a-brand-new-secret'))).toEqual({ status: 400, code: 'INVALID_PASSWORD' });
    const locking = await change(cookie, 'wrong-4-password', 'a-brand-new-secret');
    expect(locking.status).toBe(429);
    expect(Number(locking.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locking.json()).toMatchObject({ code: 'ACCOUNT_LOCKED', message: expect.stringContaining('Too many wrong passwords') });
    expect(await signInStatus(person.email, DEMO_PASSWORD)).toBe(429);

    // The admin sees the lock in the users list; a reset hands over a password that works at once.
    const alex = await sessionCookie(ACCOUNTS.alex);
    const listed = async () =>
      ((await (await fetch(`${BASE_URL}/api/admin/users`, { headers: { cookie: alex } })).json()) as { users: { id: string; lockedUntil: string | null; passwordTemporary: boolean }[] }).users.find(
        (user) => user.id === person.id,
      )!;
    expect(await listed()).toMatchObject({ lockedUntil: expect.any(String), passwordTemporary: false });
    const admin = await contextAs(browser, ACCOUNTS.alex);
    const page = await admin.newPage();
    await page.goto('/admin/users');
    const row = page.locator(`[data-testid="user-row"][data-email="${person.email}"]`);
    await expect(row.getByTestId('user-locked')).toContainText('Locked until');
    await expect(row.getByTestId('user-temporary-password')).toHaveCount(0);
    const reset = await fetch(`${BASE_URL}/api/admin/users/${person.id}/password`, { method: 'POST', headers: { origin: BASE_URL, cookie: alex } });
    expect(reset.status).toBe(200);
    const { temporaryPassword } = (await reset.json()) as { temporaryPassword: string };
    expect(await signInStatus(person.email, temporaryPassword)).toBe(200);
    expect(await listed()).toMatchObject({ lockedUntil: null, passwordTemporary: true });
    await page.reload();
    await expect(row.getByTestId('user-temporary-password')).toBeVisible();
    await expect(row.getByTestId('user-locked')).toHaveCount(0);
    await admin.close();

    // Four slips, then the change: the count starts again, so one more slip elsewhere does not lock it.
    cookie = await sessionCookie(person.email, BASE_URL, temporaryPassword);
    for (let i = 0; i < 4; i += 1) expect((await change(cookie, `wrong-${i}-password`, 'a-brand-new-secret')).status).toBe(400);
    expect((await change(cookie, temporaryPassword, 'a-brand-new-secret')).status).toBe(200);
    expect(await db.query('SELECT 1 FROM sign_in_failures WHERE email = $1', [person.email])).toEqual([]);
    expect(await signInStatus(person.email, temporaryPassword)).toBe(401);
    expect(await signInStatus(person.email, 'a-brand-new-secret')).toBe(200);
  });

  test("a new account's temporary password: signing in with it leads to the password page first, and after the change on to where the person was going; a reset marks it again", async ({ browser, db }) => {
    const alex = await sessionCookie(ACCOUNTS.alex);
    const email = `tara-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const created = await fetch(`${BASE_URL}/api/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: BASE_URL, cookie: alex },
      body: JSON.stringify({ name: 'Tara', email, role: 'user' }),
    });
    expect(created.status).toBe(201);
    const { user, temporaryPassword } = (await created.json()) as { user: { id: string }; temporaryPassword: string };
    const marked = async () => (await db.query<{ password_temporary: boolean }>('SELECT password_temporary FROM users WHERE id = $1', [user.id]))[0].password_temporary;
    expect(await marked()).toBe(true);

    const context = await browser.newContext({ baseURL: BASE_URL });
    const page = await context.newPage();
    await page.goto('/settings/keys');
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fsettings%2Fkeys$/);
    await page.getByTestId('sign-in-email').fill(email);
    await page.getByTestId('sign-in-password').fill(temporaryPassword);
    await page.getByTestId('sign-in-submit').click();
    await expect(page).toHaveURL(/\/settings\/password\?next=%2Fsettings%2Fkeys$/);
    await expect(page.getByTestId('temporary-password-notice')).toContainText('You signed in with a temporary password');
    await expect(page.getByTestId('password-later')).toHaveAttribute('href', '/settings/keys');
    await checkAccessible(page, 'account-password-temporary');

    await page.getByLabel('Current password').fill(temporaryPassword);
    await page.getByLabel('New password', { exact: true }).fill('taras-own-password');
    await page.getByLabel('Repeat the new password').fill('taras-own-password');
    await page.getByTestId('password-submit').click();
    await expect(page.getByTestId('password-changed')).toBeVisible();
    await expect(page.getByTestId('temporary-password-notice')).toHaveCount(0);
    expect(await marked()).toBe(false);
    await page.getByTestId('password-continue').click();
    await expect(page).toHaveURL(/\/settings\/keys$/);
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();

    // Signing in with one's own password goes straight on; an admin's reset marks the account again.
    expect(await signInStatus(email, 'taras-own-password')).toBe(200);
    const reset = await fetch(`${BASE_URL}/api/admin/users/${user.id}/password`, { method: 'POST', headers: { origin: BASE_URL, cookie: alex } });
    expect(reset.status).toBe(200);
    expect(await marked()).toBe(true);
    await context.close();
  });
});
