import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseUrl } from '../support/harness';

/*
 * The API-key cache (lib/auth/api-keys.ts): a key better-auth accepted is answered from memory on
 * the next requests, each request is still counted against the key's limit, and revoking the key,
 * changing its scopes or deactivating its owner takes effect at once — on this server directly,
 * on the others by the api_keys and users triggers' NOTIFY.
 */

let auth: typeof import('../../lib/auth/auth').auth;
let keys: typeof import('../../lib/auth/api-keys');
let prisma: typeof import('../../lib/store/db').prisma;
let notifications: typeof import('../../lib/store/listen').notifications;

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  // A fixed base URL, so the plugin's server-side calls need no request.
  process.env.BETTER_AUTH_URL = 'http://localhost:3000';
  ({ auth } = await import('../../lib/auth/auth'));
  keys = await import('../../lib/auth/api-keys');
  ({ prisma } = await import('../../lib/store/db'));
  ({ notifications } = await import('../../lib/store/listen'));
});
afterAll(async () => {
  // Its users leave with it (their keys cascade): a reviewer left behind would be mailed by other files' tests.
  await prisma().user.deleteMany({ where: { id: { startsWith: 'key-cache-' } } });
  await prisma().$disconnect();
});

const headers = new Headers({ host: 'localhost:3000' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A user of `role` with a key of `scopes` and `perMinute`, made as createApiKey makes keys. */
async function userWithKey(role: 'user' | 'reviewer', scopes: string[], perMinute = 120) {
  const userId = `key-cache-${crypto.randomUUID()}`;
  await prisma().user.create({ data: { id: userId, name: 'Key cache', email: `${userId}@example.com`, role, emailVerified: true } });
  const made = await auth().api.createApiKey({ body: { userId, name: 'cache', prefix: keys.API_KEY_PREFIX } });
  // Setting the scopes is announced like any change of the key: wait for that announcement, so it
  // cannot arrive after the key's first use and empty the cache under the test's feet.
  let announced!: () => void;
  const announcement = new Promise<void>((resolve) => (announced = resolve));
  const unsubscribe = await notifications().subscribe('countersign_sessions', (id) => id === userId && announced());
  await prisma().apikey.update({
    where: { id: made.id },
    data: { permissions: JSON.stringify({ scopes }), rateLimitEnabled: false, rateLimitTimeWindow: 60_000, rateLimitMax: perMinute },
  });
  await announcement;
  unsubscribe();
  return { userId, keyId: made.id, secret: made.key };
}

/** Polls `check` until it passes or `ms` is over (a NOTIFY arrives a few milliseconds after the commit). */
async function eventually(check: () => Promise<unknown>, ms = 3_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

describe('API keys answered from memory', () => {
  it('asks better-auth once, then answers from memory; every request is still counted', async () => {
    const key = await userWithKey('user', ['agents:run'], 3);
    const verify = vi.spyOn(auth().api, 'verifyApiKey');
    try {
      for (let i = 0; i < 3; i++) expect((await keys.verifyApiKey(key.secret, headers)).keyId).toBe(key.keyId);
      expect(verify).toHaveBeenCalledTimes(1);
      await expect(keys.verifyApiKey(key.secret, headers)).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    } finally {
      verify.mockRestore();
    }
    const stored = await prisma().apikey.findUniqueOrThrow({ where: { id: key.keyId } });
    expect(stored.lastRequest).not.toBeNull();
  });

  it('a revoked key is refused at once on this server', async () => {
    const key = await userWithKey('user', ['agents:run']);
    await keys.verifyApiKey(key.secret, headers);
    await keys.revokeApiKey({ id: key.userId, role: 'user' }, key.keyId);
    await expect(keys.verifyApiKey(key.secret, headers)).rejects.toMatchObject({ status: 401, code: 'API_KEY_REVOKED' });
  });

  it('a change made elsewhere (scopes, revocation, the owner deactivated) reaches the cache by NOTIFY', async () => {
    const scoped = await userWithKey('reviewer', ['agents:run']);
    expect((await keys.verifyApiKey(scoped.secret, headers)).scopes).toEqual(['agents:run']);
    // Another server (or an admin's SQL) changes the key's scopes: this process did not do it.
    await prisma().$executeRaw`UPDATE api_keys SET permissions = ${JSON.stringify({ scopes: ['agents:run', 'inbox:read'] })} WHERE id = ${scoped.keyId}`;
    await eventually(async () => expect((await keys.verifyApiKey(scoped.secret, headers)).scopes).toEqual(['agents:run', 'inbox:read']));

    const revoked = await userWithKey('user', ['agents:run']);
    await keys.verifyApiKey(revoked.secret, headers);
    await prisma().$executeRaw`UPDATE api_keys SET enabled = false WHERE id = ${revoked.keyId}`;
    await eventually(() => expect(keys.verifyApiKey(revoked.secret, headers)).rejects.toMatchObject({ code: 'API_KEY_REVOKED' }));

    const banned = await userWithKey('user', ['agents:run']);
    await keys.verifyApiKey(banned.secret, headers);
    await prisma().$executeRaw`UPDATE users SET banned = true WHERE id = ${banned.userId}`;
    await eventually(() => expect(keys.verifyApiKey(banned.secret, headers)).rejects.toMatchObject({ code: 'ACCOUNT_DEACTIVATED' }));
  });

  it('using a key does not empty the cache (its last-used time is not announced)', async () => {
    const key = await userWithKey('user', ['agents:run']);
    await keys.verifyApiKey(key.secret, headers);
    await prisma().$executeRaw`UPDATE api_keys SET last_request = now(), request_count = request_count + 1 WHERE id = ${key.keyId}`;
    await sleep(200);
    const verify = vi.spyOn(auth().api, 'verifyApiKey');
    try {
      await keys.verifyApiKey(key.secret, headers);
      expect(verify).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
    }
  });
});
