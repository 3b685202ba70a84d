import type { APIRequestContext } from '@playwright/test';
import { ACCOUNTS, contextAs, expect, sessionCookie, signIn, test } from './support';
import { BASE_URL, DEMO_PASSWORD, extraPort } from './config';
import { startServer, type ExtraServer } from './servers';
import { checkAccessible, DESKTOP, MOBILE, reviewerInbox } from './ui';

const origin = { origin: BASE_URL };

async function signInWith(request: APIRequestContext, email: string, password: string) {
  return request.post(`${BASE_URL}/api/auth/sign-in/email`, { data: { email, password }, headers: origin });
}

test.describe('user administration (/admin/users)', () => {
  test('an admin adds a reviewer, changes the role, deactivates (sessions and keys revoked; their waiting call stays decidable), reactivates and resets the password; every change is audited', async ({
    browser,
    playwright,
    db,
  }) => {
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const page = await alex.newPage();
    await page.goto('/admin/users');
    await expect(page.getByRole('heading', { name: 'Users' })).toBeVisible();

    const email = `nia-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const form = page.getByTestId('add-user-form');
    await form.getByLabel('Name').fill('Nia');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Role').selectOption('reviewer');
    await page.getByTestId('add-user').click();
    const handover = page.getByTestId('password-handover');
    await expect(handover).toContainText(email);
    const password = await page.getByTestId('temporary-password').inputValue();
    expect(password.length).toBeGreaterThanOrEqual(20);
    await checkAccessible(page, 'admin-users-handover');
    const row = page.locator(`[data-testid="user-row"][data-email="${email}"]`);
    await expect(row.getByTestId('user-role')).toHaveValue('reviewer');
    const [{ id: niaId }] = await db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]);

    // Nia signs in with the handed-over password and reads the inbox as a reviewer.
    const nia = await playwright.request.newContext({ baseURL: BASE_URL });
    expect((await signInWith(nia, email, password)).status()).toBe(200);
    expect((await nia.get('/api/inbox')).status()).toBe(200);

    // Role → user: the inbox is closed to her at once.
    await row.getByTestId('user-role').selectOption('user');
    await expect(page.getByText('Nia is now user')).toBeVisible();
    await expect.poll(async () => (await nia.get('/api/inbox')).status()).toBe(403);

    // She asks for something and makes a key; then she is deactivated.
    const threadId = `nia-${crypto.randomUUID()}`;
    const paused = await (await nia.post('/api/agents/ops-agent/generate', { data: { messages: 'delete record rec-44', threadId, resourceId: niaId } })).json();
    expect(paused.finishReason).toBe('suspended');
    const key = await (await nia.post('/api/keys', { data: { name: 'nia cli', scopes: ['agents:run'], password }, headers: origin })).json();
    expect(key.secret).toBeTruthy();
    const spare = await (await nia.post('/api/keys', { data: { name: 'nia spare', scopes: ['agents:run'], password }, headers: origin })).json();
    expect(spare.secret).toBeTruthy();
    await expect(async () => {
      await page.reload();
      await expect(row).toContainText('2 API keys');
    }).toPass();
    // The admin lists her keys and revokes one: it is refused at once, the other still works.
    await row.getByTestId('user-keys-toggle').click();
    await expect(row.getByTestId('user-key-row')).toHaveCount(2);
    await row.getByRole('button', { name: 'Revoke nia spare of Nia' }).click();
    await expect(row.getByTestId('user-key-row').filter({ hasText: 'nia spare' })).toHaveAttribute('data-status', 'revoked');
    await expect(row).toContainText('1 API key');
    const spareUse = await fetch(`${BASE_URL}/api/me`, { headers: { authorization: `Bearer ${spare.secret}` } });
    expect(spareUse.status).toBe(401);
    expect((await fetch(`${BASE_URL}/api/me`, { headers: { authorization: `Bearer ${key.secret}` } })).status).toBe(200);

    await row.getByRole('button', { name: 'Deactivate Nia' }).click();
    await page.getByLabel('Reason (optional, kept in the audit)').fill('left the team');
    await page.getByTestId('confirm-user-action').click();
    await expect(row).toHaveAttribute('data-active', 'false');
    await expect(row).toContainText('Deactivated');
    // Her session, her key and her password are refused at once.
    expect((await nia.get('/api/inbox')).status()).toBe(401);
    const withKey = await fetch(`${BASE_URL}/api/agents/ops-agent/suspended-runs`, { headers: { authorization: `Bearer ${key.secret}` } });
    expect(withKey.status).toBe(401);
    expect(['API_KEY_REVOKED', 'ACCOUNT_DEACTIVATED']).toContain((await withKey.json()).error.code);
    const refused = await signInWith(nia, email, password);
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe('BANNED_USER');
    // What she asked for stays decidable: a reviewer approves it.
    const [call] = await db.query<{ tool_call_id: string }>(`SELECT tool_call_id FROM pending_tool_calls WHERE thread_id = $1 AND status = 'pending'`, [threadId]);
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const decided = await rita.request.post(`/api/runs/${paused.runId}/tool-calls/${encodeURIComponent(call.tool_call_id)}/decision`, { data: { approved: true }, headers: origin });
    expect(decided.status()).toBe(200);
    await decided.body();
    await expect.poll(() => db.recordExists('rec-44')).toBe(false);

    // Reactivated: she may sign in again (her old key stays revoked).
    await row.getByRole('button', { name: 'Reactivate Nia' }).click();
    await expect(row).toHaveAttribute('data-active', 'true');
    expect((await signInWith(nia, email, password)).status()).toBe(200);

    // Password reset: the old one stops working, the new one works; her sessions end.
    await row.getByRole('button', { name: 'Reset password of Nia' }).click();
    await page.getByTestId('confirm-user-action').click();
    await expect(page.getByTestId('password-handover')).toContainText(`New password for ${email}`);
    const newPassword = await page.getByTestId('temporary-password').inputValue();
    expect(newPassword).not.toBe(password);
    expect((await nia.get('/api/chat/anything')).status()).toBe(401);
    expect((await signInWith(nia, email, password)).status()).toBe(401);
    expect((await signInWith(nia, email, newPassword)).status()).toBe(200);

    const audit = await db.query<{ action: string; actor_id: string; details: Record<string, unknown> }>(
      `SELECT action, actor_id, details FROM audit_events WHERE target_id = $1 AND action LIKE 'user.%' ORDER BY created_at, id`,
      [niaId],
    );
    expect(audit.map((entry) => entry.action)).toEqual(['user.created', 'user.role_changed', 'user.deactivated', 'user.reactivated', 'user.password_reset']);
    expect(audit.every((entry) => entry.actor_id === 'admin-alex')).toBe(true);
    expect(audit[1].details).toEqual({ from: 'reviewer', to: 'user' });
    expect(audit[2].details).toMatchObject({ reason: 'left the team', keysRevoked: 1 });
    const signIns = await db.query(`SELECT 1 FROM audit_events WHERE action = 'auth.signed_in' AND actor_id = $1`, [niaId]);
    expect(signIns.length).toBeGreaterThanOrEqual(3);
    await Promise.all([nia.dispose(), rita.close(), alex.close()]);
  });

  test('a reviewer who is deactivated or loses the role hands back the calls assigned to them, and is neither offered nor accepted as an assignee', async ({
    browser,
    request,
    db,
  }) => {
    const [kim, lou, mallory] = await Promise.all([
      db.createAccount({ role: 'reviewer', name: 'Kim Reviewer' }),
      db.createAccount({ role: 'reviewer', name: 'Lou Reviewer' }),
      // A name with a right-to-left override (U+202E): shown with the control visible wherever it is listed.
      db.createAccount({ role: 'reviewer', name: 'Mallory\u202Egnp.exe' }),
    ]);
    // Ada asks for two refunds that wait for a reviewer; the admin gives one to each.
    const calls = [];
    for (const order of ['ord-1042', 'ord-2001']) {
      const threadId = `release-${crypto.randomUUID()}`;
      expect((await request.post('/api/agents/ops-agent/generate', { data: { messages: `refund order ${order} for 150`, threadId, resourceId: 'user-ada' } })).status()).toBe(200);
      calls.push((await db.pendingIn(threadId, 'issue-refund'))[0]);
    }
    const [kimsCall, lousCall] = calls;
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const assign = (callId: string, assignee: string) => alex.request.post(`/api/inbox/calls/${callId}/assignment`, { data: { assignee }, headers: origin });
    expect((await assign(kimsCall.id, kim.id)).status()).toBe(200);
    expect((await assign(lousCall.id, lou.id)).status()).toBe(200);
    const assignedTo = async (callId: string) => (await db.query<{ assigned_to: string | null }>('SELECT assigned_to FROM pending_tool_calls WHERE id = $1', [callId]))[0].assigned_to;
    const lastActivity = async (callId: string) =>
      (await db.query(`SELECT kind, actor_id, assignee, body FROM call_activity WHERE pending_call_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, [callId]))[0];

    // Deactivated: Kim's call is back under "Unassigned", released by the admin, and audited.
    expect((await alex.request.patch(`/api/admin/users/${kim.id}`, { data: { active: false }, headers: origin })).status()).toBe(200);
    expect(await assignedTo(kimsCall.id)).toBeNull();
    expect(await lastActivity(kimsCall.id)).toEqual({ kind: 'released', actor_id: 'admin-alex', assignee: kim.id, body: 'account deactivated' });
    const [deactivated] = await db.query<{ details: Record<string, unknown> }>(`SELECT details FROM audit_events WHERE action = 'user.deactivated' AND target_id = $1`, [kim.id]);
    expect(deactivated.details).toMatchObject({ assignmentsReleased: 1 });
    // …and cannot be given a call again.
    const refused = await assign(kimsCall.id, kim.id);
    expect(refused.status()).toBe(422);
    expect((await refused.json()).error).toMatchObject({ code: 'INVALID_ASSIGNEE', message: expect.stringContaining('deactivated') });
    expect(await assignedTo(kimsCall.id)).toBeNull();

    // Made a user: Lou's call is released the same way; Lou's other rights went with the role.
    expect((await alex.request.patch(`/api/admin/users/${lou.id}`, { data: { role: 'user' }, headers: origin })).status()).toBe(200);
    expect(await assignedTo(lousCall.id)).toBeNull();
    expect(await lastActivity(lousCall.id)).toMatchObject({ kind: 'released', assignee: lou.id, body: 'can no longer decide it after a role change' });

    // Rita's inbox: the call says who released it from whom and why; neither is offered as an assignee.
    const { context: rita, page } = await reviewerInbox(browser, ACCOUNTS.rita, kimsCall.root_tool_call_id);
    await expect(page.getByTestId('activity-entry').filter({ hasText: 'released it' })).toContainText(/^Alex.* released it from Kim Reviewer .*: account deactivated/);
    const offered = await page.getByTestId('assign-select').locator('option').allTextContents();
    expect(offered.some((name) => name.startsWith('Sam'))).toBe(true);
    expect(offered.filter((name) => /Kim Reviewer|Lou Reviewer/.test(name))).toEqual([]);
    expect(offered).toContain(`Mallory⟪U+202E⟫gnp.exe (${mallory.email})`);
    // The admin actions log names her the same way.
    expect((await alex.request.patch(`/api/admin/users/${mallory.id}`, { data: { active: false }, headers: origin })).status()).toBe(200);
    const actions = await alex.newPage();
    await actions.goto('/audit/actions');
    await expect(actions.getByText('deactivated Mallory⟪U+202E⟫gnp.exe').first()).toBeVisible();
    await Promise.all([rita.close(), alex.close()]);
  });

  test('the last admin cannot demote or deactivate themself; two admins demoting each other at once leave one admin; others may not administer', async ({ browser, playwright, db }) => {
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const page = await alex.newPage();
    await page.goto('/admin/users');
    const own = page.locator(`[data-testid="user-row"][data-email="${ACCOUNTS.alex}"]`);
    const admins = async () => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM users WHERE role = 'admin' AND NOT banned`))[0].n);
    expect(await admins()).toBe(1);
    await own.getByTestId('user-role').selectOption('user');
    await expect(page.getByTestId('users-error')).toHaveAttribute('data-code', 'LAST_ADMIN');
    await expect(page.getByTestId('users-error')).toContainText('last active admin');
    await expect(own.getByTestId('user-role')).toHaveValue('admin');
    await expect(own.getByRole('button', { name: 'Deactivate Alex' })).toBeDisabled();
    const self = await alex.request.patch('/api/admin/users/admin-alex', { data: { active: false }, headers: origin });
    expect(self.status()).toBe(409);
    expect((await self.json()).error.code).toBe('CANNOT_DEACTIVATE_SELF');
    expect(await admins()).toBe(1);

    // A second admin; both demote the other at the same moment: exactly one wins.
    const second = await db.createAccount({ role: 'admin', name: 'Second admin' });
    try {
      const other = await playwright.request.newContext({ baseURL: BASE_URL });
      await signIn(other, second.email);
      const results = await Promise.all([
        alex.request.patch(`/api/admin/users/${second.id}`, { data: { role: 'reviewer' }, headers: origin }),
        other.patch('/api/admin/users/admin-alex', { data: { role: 'reviewer' }, headers: origin }),
      ]);
      // The loser is refused either way: 409 LAST_ADMIN when its request was checked before the other
      // demotion committed, 403 when it arrived after it (it is no longer an admin by then).
      const statuses = results.map((result) => result.status()).sort();
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      expect(await admins()).toBe(1);
      await other.dispose();
    } finally {
      // Leave Alex the one admin for the other tests.
      await db.query(`UPDATE users SET role = 'admin' WHERE id = 'admin-alex'`);
      await db.query(`UPDATE users SET role = 'user', banned = true WHERE id = $1`, [second.id]);
    }

    // Not an admin: the page is forbidden, the API 403; a key never reaches it.
    const rita = await contextAs(browser, ACCOUNTS.rita);
    const ritaPage = await rita.newPage();
    await ritaPage.goto('/admin/users');
    await expect(ritaPage).toHaveURL(/\/forbidden/);
    expect((await rita.request.get('/api/admin/users')).status()).toBe(403);
    expect((await rita.request.post('/api/admin/users', { data: { name: 'x', email: 'x@example.com', role: 'admin' }, headers: origin })).status()).toBe(403);
    // The admin plugin's own routes are closed (only the audited ones above exist).
    expect((await alex.request.post('/api/auth/admin/set-role', { data: { userId: 'user-ben', role: 'admin' }, headers: origin })).status()).toBe(404);
    expect((await db.query(`SELECT role FROM users WHERE id = 'user-ben'`))[0].role).toBe('user');
    await Promise.all([rita.close(), alex.close()]);
  });

  test('self sign-up: an admin turns it on for one domain and off again from this page (overrides the environment)', async ({ browser, playwright, db }) => {
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const page = await alex.newPage();
    const visitor = await playwright.request.newContext({ baseURL: BASE_URL });
    const signUp = (email: string) => visitor.post('/api/auth/sign-up/email', { data: { email, password: 'a-long-password-1', name: 'Visitor' }, headers: origin });
    try {
      await page.goto('/admin/users');
      await expect(page.getByTestId('sign-up-source')).toContainText('environment');
      expect((await (await signUp(`v-${crypto.randomUUID()}@example.org`)).json()).error.code).toBe('SIGN_UP_DISABLED');

      const settings = page.getByTestId('sign-up-form');
      await settings.getByLabel('People may create their own account').check();
      await settings.getByLabel('Allowed email domains').fill('example.org');
      await page.getByTestId('save-sign-up').click();
      await expect(page.getByTestId('sign-up-source')).toContainText('overrides');

      const outside = await signUp(`v-${crypto.randomUUID()}@example.net`);
      expect(outside.status()).toBe(403);
      expect((await outside.json()).error.code).toBe('EMAIL_DOMAIN_NOT_ALLOWED');
      const inside = `v-${crypto.randomUUID()}@example.org`;
      expect((await signUp(inside)).status()).toBe(200);
      expect((await db.query(`SELECT role FROM users WHERE email = $1`, [inside]))[0].role).toBe('user');

      // Bad input changes nothing.
      const bad = await alex.request.put('/api/admin/settings/sign-up', { data: { enabled: true, domains: ['not a domain'] }, headers: origin });
      expect(bad.status()).toBe(400);

      await settings.getByLabel('People may create their own account').uncheck();
      await page.getByTestId('save-sign-up').click();
      await expect(page.getByText('Sign-up is off')).toBeVisible();
      expect((await (await signUp(`v-${crypto.randomUUID()}@example.org`)).json()).error.code).toBe('SIGN_UP_DISABLED');
      const changes = await db.query<{ details: any }>(`SELECT details FROM audit_events WHERE action = 'settings.sign_up_changed' ORDER BY created_at`);
      expect(changes.slice(-2).map((change) => change.details.after)).toEqual([
        { enabled: true, domains: ['example.org'] },
        { enabled: false, domains: ['example.org'] },
      ]);
    } finally {
      // Other tests expect the environment's default (off).
      await db.query(`DELETE FROM app_settings WHERE key = 'sign_up'`);
      await visitor.dispose();
      await alex.close();
    }
  });

  test('a reset far down a long list shows the temporary password in view and focused, at 390 px', async ({ browser, db }) => {
    const people = [];
    for (let i = 0; i < 25; i += 1) people.push(await db.createAccount({ name: `Listed person ${String(i).padStart(2, '0')}` }));
    const last = people.at(-1)!;
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const page = await alex.newPage();
    await page.setViewportSize(MOBILE);
    await page.goto('/admin/users');
    const reset = page.getByRole('button', { name: `Reset password of ${'Listed person 24'}` });
    await reset.scrollIntoViewIfNeeded();
    await reset.click();
    await page.getByTestId('confirm-user-action').click();
    const handover = page.getByTestId('password-handover');
    await expect(handover).toContainText(`New password for ${last.email}`);
    await expect(handover).toBeInViewport();
    await expect(handover).toBeFocused();
    await alex.close();
  });

  test('accessibility and screenshots of /admin/users and /settings/keys (light and dark, desktop and phone)', async ({ browser, page, db }) => {
    // Eight axe runs (light and dark each): more than the default minute on a busy machine.
    test.setTimeout(240_000);
    // A name that reverses the text after it (U+202E) is shown with its control visible, not obeyed.
    const spoof = await db.createAccount({ name: 'Mallory\u202Egnp.exe' });
    const alex = await contextAs(browser, ACCOUNTS.alex);
    const admin = await alex.newPage();
    for (const [size, suffix] of [
      [DESKTOP, 'desktop'],
      [MOBILE, 'phone'],
    ] as const) {
      await admin.setViewportSize(size);
      await admin.goto('/admin/users');
      await expect(admin.getByTestId('users-list')).toBeVisible();
      await checkAccessible(admin, `admin-users-${suffix}`);
      await expect(admin.locator(`[data-testid="user-row"][data-email="${spoof.email}"]`)).toContainText('Mallory⟪U+202E⟫gnp.exe');
      await page.setViewportSize(size);
      await page.goto('/settings/keys');
      await expect(page.getByTestId('create-key-form')).toBeVisible();
      await checkAccessible(page, `settings-keys-${suffix}`);
    }
    // The one-time secret panel and a listed key.
    await page.setViewportSize(DESKTOP);
    await page.getByLabel('Name').fill('screenshot key');
    await page.getByLabel('Your password').fill(DEMO_PASSWORD);
    await page.getByTestId('create-key').click();
    await expect(page.getByTestId('new-key-secret')).toBeVisible();
    await checkAccessible(page, 'settings-keys-secret');
    await page.setViewportSize(MOBILE);
    await checkAccessible(page, 'settings-keys-secret-phone');
    await alex.close();
  });
});

test.describe('sessions cached per server', () => {
  let second: ExtraServer;
  test.beforeAll(async () => {
    second = await startServer({ port: extraPort(5) });
  });
  test.afterAll(async () => {
    await second?.kill();
  });

  test('a role change, a deactivation and a sign-out on one server apply on another that had the session cached, within the NOTIFY delay', async () => {
    const admin = await sessionCookie(ACCOUNTS.alex);
    const json = { 'content-type': 'application/json', origin: BASE_URL, cookie: admin };
    const email = `cache-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const created = await fetch(`${BASE_URL}/api/admin/users`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'Cache', email, role: 'reviewer' }) });
    expect(created.status).toBe(201);
    const { user, temporaryPassword } = (await created.json()) as { user: { id: string }; temporaryPassword: string };
    const signInOn = async (baseURL: string) => {
      const response = await fetch(`${baseURL}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: baseURL },
        body: JSON.stringify({ email, password: temporaryPassword }),
      });
      expect(response.status).toBe(200);
      return response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
    };
    const inboxOnSecond = async (cookie: string) => (await fetch(`${second.url}/api/inbox`, { headers: { cookie } })).status;
    // A change reaches the other server by NOTIFY, a few milliseconds after it commits; the next
    // request can win that race under load (it did once in CI). So the second server must answer
    // the new state within 2 s: far inside the cache's 60 s safety net, so this still fails if the
    // notification is lost.
    const expectOnSecond = (cookie: string, status: number) =>
      expect.poll(() => inboxOnSecond(cookie), { timeout: 2_000, intervals: [0, 20, 50, 100] }).toBe(status);
    const patch = async (body: unknown) => {
      const response = await fetch(`${BASE_URL}/api/admin/users/${user.id}`, { method: 'PATCH', headers: json, body: JSON.stringify(body) });
      expect(response.status).toBe(200);
    };

    // Read twice on the second server: the second answer comes from its cache.
    const cookie = await signInOn(second.url);
    expect(await inboxOnSecond(cookie)).toBe(200);
    expect(await inboxOnSecond(cookie)).toBe(200);
    // Demoted on the first server: the inbox is closed to them on the second.
    await patch({ role: 'user' });
    await expectOnSecond(cookie, 403);
    await patch({ role: 'reviewer' });
    await expectOnSecond(cookie, 200);
    // Deactivated on the first server: refused on the second.
    await patch({ active: false });
    await expectOnSecond(cookie, 401);

    // Reactivated, signed in again and cached on the second server; signed out on the first.
    await patch({ active: true });
    const again = await signInOn(second.url);
    expect(await inboxOnSecond(again)).toBe(200);
    expect(await inboxOnSecond(again)).toBe(200);
    const signedOut = await fetch(`${BASE_URL}/api/auth/sign-out`, { method: 'POST', headers: { 'content-type': 'application/json', origin: BASE_URL, cookie: again }, body: '{}' });
    expect(signedOut.status).toBe(200);
    await expectOnSecond(again, 401);
  });
});
