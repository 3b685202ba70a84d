import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../../lib/demo/seed';
import { databaseUrl } from '../support/harness';

/*
 * Minting and holding API keys (issue #30 items 8 and 9), through the route handlers as Next calls
 * them, against the real database and better-auth: a key needs the current password again, a person
 * has at most 10 active keys and 20 tries an hour, a password change or an admin's reset revokes the
 * keys, an admin lists and revokes one person's keys, answering a suspended call by
 * autoResumeSuspendedTools needs decisions:write, and GET /api/me tells a key who it acts as.
 */

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const PASSWORD = 'correct horse battery';
const tag = crypto.randomUUID().slice(0, 8);
let prisma: typeof import('../../lib/store/db').prisma;
let auth: typeof import('../../lib/auth/auth').auth;
let resetPassword: typeof import('../../lib/admin/users').resetPassword;
let routes: Record<'keys' | 'listKeys' | 'adminKeys' | 'adminRevoke' | 'me' | 'stream' | 'generate', Handler>;

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  process.env.BETTER_AUTH_URL = 'http://localhost:3000';
  await seed(databaseUrl());
  ({ prisma } = await import('../../lib/store/db'));
  ({ auth } = await import('../../lib/auth/auth'));
  ({ resetPassword } = await import('../../lib/admin/users'));
  routes = {
    keys: (await import('../../app/api/keys/route')).POST as Handler,
    listKeys: (await import('../../app/api/keys/route')).GET as Handler,
    adminKeys: (await import('../../app/api/admin/users/[userId]/keys/route')).GET as Handler,
    adminRevoke: (await import('../../app/api/admin/users/[userId]/keys/[keyId]/route')).DELETE as Handler,
    me: (await import('../../app/api/me/route')).GET as Handler,
    stream: (await import('../../app/api/agents/[agentId]/stream/route')).POST as Handler,
    generate: (await import('../../app/api/agents/[agentId]/generate/route')).POST as Handler,
  };
});

afterAll(async () => {
  await prisma().user.deleteMany({ where: { id: { startsWith: `keyguard-${tag}-` } } });
  await prisma().$disconnect();
});

/** An account with a password, signed in: its id, email and session cookie. */
async function person(name: string, role: 'user' | 'reviewer' | 'admin' = 'user') {
  const id = `keyguard-${tag}-${name}`;
  const email = `${id}@example.com`;
  await prisma().user.create({ data: { id, name, email, role, emailVerified: true } });
  const hash = await (await auth().$context).password.hash(PASSWORD);
  await prisma().account.create({ data: { id: `${id}-credential`, accountId: id, providerId: 'credential', userId: id, password: hash } });
  return { id, email, cookie: await signIn(email) };
}

async function signIn(email: string, password = PASSWORD) {
  const response = await auth().api.signInEmail({ body: { email, password }, asResponse: true });
  expect(response.status).toBe(200);
  return response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ');
}

/** Calls a route handler as Next would, with a session cookie or an API key. */
async function call(handler: Handler, path: string, who: { cookie?: string; key?: string }, init: { method?: string; body?: unknown; params?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { host: 'localhost:3000' };
  if (who.cookie) headers.cookie = who.cookie;
  if (who.key) headers.authorization = `Bearer ${who.key}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const request = new Request(`http://localhost:3000${path}`, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const response = await handler(request, { params: Promise.resolve(init.params ?? {}) });
  return { status: response.status, body: (await response.json()) as any };
}

const createKey = (who: { cookie: string }, body: Record<string, unknown>) =>
  call(routes.keys, '/api/keys', who, { method: 'POST', body: { name: 'k', scopes: ['agents:run'], ...body } });

const activeKeys = (userId: string) => prisma().apikey.count({ where: { referenceId: userId, enabled: true } });

describe('creating an API key', () => {
  it('asks for the current password again: none is 400, a wrong one 403 INVALID_PASSWORD (counted towards the lockout), both make no key', async () => {
    const ada = await person('pw');
    expect((await createKey(ada, {})).status).toBe(400);
    const wrong = await createKey(ada, { password: 'not my password' });
    expect(wrong).toMatchObject({ status: 403, body: { error: { code: 'INVALID_PASSWORD' } } });
    expect(await activeKeys(ada.id)).toBe(0);
    expect(await prisma().signInFailure.findUnique({ where: { email: ada.email } })).toMatchObject({ failures: 1 });
    const made = await createKey(ada, { password: PASSWORD });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^cs_/);
  });

  it('allows at most 10 active keys (409 TOO_MANY_KEYS, nothing made); revoking one makes room', async () => {
    const ben = await person('ten');
    for (let i = 0; i < 10; i++) expect((await createKey(ben, { name: `k${i}`, password: PASSWORD })).status).toBe(201);
    const eleventh = await createKey(ben, { name: 'k10', password: PASSWORD });
    expect(eleventh).toMatchObject({ status: 409, body: { error: { code: 'TOO_MANY_KEYS' } } });
    expect(await activeKeys(ben.id)).toBe(10);
    const [oldest] = await prisma().apikey.findMany({ where: { referenceId: ben.id }, orderBy: { createdAt: 'asc' }, take: 1 });
    await prisma().apikey.update({ where: { id: oldest.id }, data: { enabled: false } });
    expect((await createKey(ben, { name: 'k10', password: PASSWORD })).status).toBe(201);
  });

  it('two creations at once cannot pass the limit together', async () => {
    const cy = await person('race');
    for (let i = 0; i < 9; i++) expect((await createKey(cy, { name: `k${i}`, password: PASSWORD })).status).toBe(201);
    const both = await Promise.all([createKey(cy, { name: 'a', password: PASSWORD }), createKey(cy, { name: 'b', password: PASSWORD })]);
    expect(both.map((r) => r.status).sort()).toContain(201);
    expect(await activeKeys(cy.id)).toBeLessThanOrEqual(10);
  });

  it('is rate-limited: the 21st try within an hour is 429 RATE_LIMITED with retryAfterSeconds', async () => {
    const dee = await person('rate');
    // Tries refused after the password check (a scope beyond the role) count too.
    for (let i = 0; i < 20; i++) expect((await createKey(dee, { scopes: ['audit:read'], password: PASSWORD })).status).toBe(403);
    const refused = await createKey(dee, { password: PASSWORD });
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'RATE_LIMITED', details: { retryAfterSeconds: expect.any(Number) } } } });
    expect(await activeKeys(dee.id)).toBe(0);
  });
});

describe('keys and passwords', () => {
  it('the owner changing their password revokes their keys', async () => {
    const eve = await person('change');
    const { body } = await createKey(eve, { password: PASSWORD });
    expect((await call(routes.me, '/api/me', { key: body.secret })).status).toBe(200);
    await auth().api.changePassword({ headers: new Headers({ cookie: eve.cookie, host: 'localhost:3000' }), body: { currentPassword: PASSWORD, newPassword: 'a brand new password' } });
    expect(await activeKeys(eve.id)).toBe(0);
    expect(await call(routes.me, '/api/me', { key: body.secret })).toMatchObject({ status: 401, body: { error: { code: 'API_KEY_REVOKED' } } });
    const event = await prisma().auditEvent.findFirstOrThrow({ where: { action: 'auth.password_changed', targetId: eve.id } });
    expect(event.details).toMatchObject({ keysRevoked: 1 });
  });

  it('an admin resetting the password revokes the keys', async () => {
    const admin = await person('admin-reset', 'admin');
    const fay = await person('reset');
    const { body } = await createKey(fay, { password: PASSWORD });
    await resetPassword({ id: admin.id, role: 'admin' }, fay.id, new Headers({ cookie: admin.cookie, host: 'localhost:3000' }));
    expect(await activeKeys(fay.id)).toBe(0);
    expect(await call(routes.me, '/api/me', { key: body.secret })).toMatchObject({ status: 401, body: { error: { code: 'API_KEY_REVOKED' } } });
    const event = await prisma().auditEvent.findFirstOrThrow({ where: { action: 'user.password_reset', targetId: fay.id } });
    expect(event.details).toMatchObject({ keysRevoked: 1 });
  });

  it('an admin lists one person’s keys and revokes one; others may not', async () => {
    const admin = await person('admin-list', 'admin');
    const gus = await person('listed');
    const { body } = await createKey(gus, { name: 'gus cli', password: PASSWORD });
    const listed = await call(routes.adminKeys, `/api/admin/users/${gus.id}/keys`, admin, { params: { userId: gus.id } });
    expect(listed.status).toBe(200);
    expect(listed.body.keys).toEqual([expect.objectContaining({ id: body.key.id, name: 'gus cli', status: 'active' })]);
    expect((await call(routes.adminKeys, `/api/admin/users/${gus.id}/keys`, gus, { params: { userId: gus.id } })).status).toBe(403);
    expect((await call(routes.adminRevoke, `/api/admin/users/${gus.id}/keys/${body.key.id}`, gus, { method: 'DELETE', params: { userId: gus.id, keyId: body.key.id } })).status).toBe(403);
    // A key of someone else addressed under this person is not found.
    expect((await call(routes.adminRevoke, `/api/admin/users/${admin.id}/keys/${body.key.id}`, admin, { method: 'DELETE', params: { userId: admin.id, keyId: body.key.id } })).status).toBe(404);
    const revoked = await call(routes.adminRevoke, `/api/admin/users/${gus.id}/keys/${body.key.id}`, admin, { method: 'DELETE', params: { userId: gus.id, keyId: body.key.id } });
    expect(revoked).toMatchObject({ status: 200, body: { key: { id: body.key.id, status: 'revoked' } } });
    expect(await call(routes.me, '/api/me', { key: body.secret })).toMatchObject({ status: 401, body: { error: { code: 'API_KEY_REVOKED' } } });
    const event = await prisma().auditEvent.findFirstOrThrow({ where: { action: 'api_key.revoked', targetId: body.key.id } });
    expect(event).toMatchObject({ actorId: admin.id, details: { owner: gus.id } });
  });
});

describe('who a key acts as', () => {
  it('GET /api/me answers a session and any key (whatever its scopes) with the id, name, email, role and the key’s scopes', async () => {
    const hal = await person('me', 'reviewer');
    expect(await call(routes.me, '/api/me', hal)).toMatchObject({ status: 200, body: { id: hal.id, name: 'me', email: hal.email, role: 'reviewer', apiKey: null } });
    const { body } = await createKey(hal, { scopes: ['inbox:read'], password: PASSWORD });
    expect(await call(routes.me, '/api/me', { key: body.secret })).toMatchObject({
      status: 200,
      body: { id: hal.id, role: 'reviewer', apiKey: { id: body.key.id, scopes: ['inbox:read'] } },
    });
    expect((await call(routes.me, '/api/me', {})).status).toBe(401);
  });

  it('the agents API takes the caller as resourceId when it is left out, and a wrong one’s 403 names the caller’s id', async () => {
    const ivy = await person('resource');
    const { body } = await createKey(ivy, { scopes: ['agents:run'], password: PASSWORD });
    const threadId = `keyguard-${tag}-thread`;
    // Someone else's thread: refused as unknown (404) only once the body passed — no resourceId needed.
    await prisma().thread.create({ data: { id: threadId, resourceId: 'user-ada', title: 't', agentId: 'ops-agent' } });
    for (const route of [routes.stream, routes.generate]) {
      const omitted = await call(route, '/api/agents/ops-agent/x', { key: body.secret }, { method: 'POST', body: { messages: 'hi', threadId }, params: { agentId: 'ops-agent' } });
      expect(omitted).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
      const wrong = await call(route, '/api/agents/ops-agent/x', { key: body.secret }, { method: 'POST', body: { messages: 'hi', threadId, resourceId: 'user-ada' }, params: { agentId: 'ops-agent' } });
      expect(wrong).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN', details: { yourUserId: ivy.id } } } });
      expect(wrong.body.error.message).toContain(ivy.id);
    }
  });

  it('answering a suspended call by autoResumeSuspendedTools needs decisions:write', async () => {
    const jo = await person('resume');
    const runOnly = (await createKey(jo, { scopes: ['agents:run'], password: PASSWORD })).body.secret;
    const decides = (await createKey(jo, { scopes: ['agents:run', 'decisions:write'], password: PASSWORD })).body.secret;
    const threadId = `keyguard-${tag}-resume`;
    await prisma().thread.create({ data: { id: threadId, resourceId: 'user-ben', title: 't', agentId: 'ops-agent' } });
    const send = (key: string) =>
      call(routes.stream, '/api/agents/ops-agent/stream', { key }, { method: 'POST', body: { messages: 'Paris', threadId, autoResumeSuspendedTools: true }, params: { agentId: 'ops-agent' } });
    expect(await send(runOnly)).toMatchObject({ status: 403, body: { error: { code: 'INSUFFICIENT_SCOPE', details: { required: 'decisions:write' } } } });
    // With the scope the request goes on (to the thread rule: someone else's thread is unknown).
    expect((await send(decides)).status).toBe(404);
  });
});
