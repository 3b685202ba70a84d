import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * An API key checked while PostgreSQL cannot be reached must not be answered 401: a client told its
 * key is invalid would throw a good key away. Here the process's database is a closed port, so
 * better-auth's lookup fails the way it does in an outage (it reports "not valid").
 */

let keys: typeof import('../../lib/auth/api-keys');
let prisma: typeof import('../../lib/store/db').prisma;

beforeAll(async () => {
  // Port 9 (discard) is closed here: every connection is refused.
  process.env.DATABASE_URL = 'postgresql://postgres:postgres@127.0.0.1:9/countersign';
  process.env.BETTER_AUTH_URL = 'http://localhost:3000';
  keys = await import('../../lib/auth/api-keys');
  ({ prisma } = await import('../../lib/store/db'));
});
afterAll(() => prisma().$disconnect());

describe('an API key during a database outage', () => {
  it('is refused with the database’s error, not 401 API_KEY_INVALID', async () => {
    const outcome = await keys.verifyApiKey(`cs_${'a'.repeat(64)}`, new Headers({ host: 'localhost:3000' })).then(
      () => 'accepted',
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome).not.toMatchObject({ status: 401 });
    expect(String((outcome as Error).message)).toMatch(/ECONNREFUSED|connect|reach/i);
  });
});
