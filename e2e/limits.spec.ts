import { expect, sessionCookie, test } from './support';
import { startServer, type ExtraServer } from './servers';
import { DEMO_PASSWORD, extraPort } from './config';

// Limits on servers started with tight settings: live streams per person, request rates, sign-up,
// and failed sign-ins (per account, and per client address behind a trusted proxy).

const newId = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;

test.describe('limits and sign-in, on servers with tight settings', () => {
  let tight: ExtraServer;
  test.beforeAll(async () => {
    tight = await startServer({
      port: extraPort(8),
      env: {
        SIGN_UP_ENABLED: 'true',
        SIGN_UP_EMAIL_DOMAINS: 'example.org',
        SSE_MAX_CONNECTIONS_PER_USER: '2',
        AGENTS_RATE_LIMIT_PER_MINUTE: '3',
        RUNS_RATE_LIMIT_PER_MINUTE: '3',
      },
    });
  });
  test.afterAll(async () => {
    await tight?.kill();
  });

  test('SSE connections per person are capped; a closed one frees its slot', async ({ db }) => {
    const reviewer = await db.createAccount({ role: 'reviewer' });
    const cookie = await sessionCookie(reviewer.email, tight.url);
    const open = async () => {
      const controller = new AbortController();
      const response = await fetch(`${tight.url}/api/inbox/events`, { headers: { cookie }, signal: controller.signal });
      return { response, close: () => controller.abort() };
    };
    const first = await open();
    const second = await open();
    expect([first.response.status, second.response.status]).toEqual([200, 200]);
    const third = await open();
    expect(third.response.status).toBe(429);
    expect((await third.response.json()).error.code).toBe('TOO_MANY_STREAMS');
    first.close();
    await expect
      .poll(async () => {
        const again = await open();
        again.close();
        return again.response.status;
      })
      .toBe(200);
    second.close();
  });

  test('the cap counts all of a person\'s live streams on the server, whichever route opened them', async ({ db }) => {
    const reviewer = await db.createAccount({ role: 'reviewer' });
    const threadId = newId('slots');
    await db.query('INSERT INTO threads (id, resource_id, agent_id, title) VALUES ($1, $2, $3, $4)', [threadId, reviewer.id, 'ops-agent', 'Slots']);
    const cookie = await sessionCookie(reviewer.email, tight.url);
    const open = async (path: string) => {
      const controller = new AbortController();
      const response = await fetch(`${tight.url}${path}`, { headers: { cookie }, signal: controller.signal });
      return { response, close: () => controller.abort() };
    };
    // A segment streaming on the thread (a `start` with no `finish`), so its stream can be resumed.
    const runId = newId('slots-run');
    const messageId = newId('slots-message');
    await db.query(
      `INSERT INTO runs (id, thread_id, resource_id, requested_by, agent_id, message_id, status, lease_expires_at)
       VALUES ($1, $2, $3, $3, 'ops-agent', $4, 'running', now() + interval '1 hour')`,
      [runId, threadId, reviewer.id, messageId],
    );
    await db.query('INSERT INTO run_events (run_id, chunk) VALUES ($1, $2)', [
      runId,
      JSON.stringify({ type: 'start', runId, from: 'AGENT', payload: { messageId, threadId } }),
    ]);
    // A count kept per copy of the module (each of Next's server bundles can hold one) would allow 2 per copy.
    const inbox = await open('/api/inbox/events');
    const resumed = await open(`/api/chat/${threadId}/stream`);
    expect([inbox.response.status, resumed.response.status]).toEqual([200, 200]);
    const refused = [await open('/api/inbox/events'), await open(`/api/chat/${threadId}/events`), await open(`/api/chat/${threadId}/stream`)];
    expect(refused.map((stream) => stream.response.status)).toEqual([429, 429, 429]);
    for (const stream of [inbox, resumed, ...refused]) stream.close();
  });

  test('/api/agents/* and /api/runs/* are rate-limited per person with 429 and Retry-After', async ({ db }) => {
    const person = await db.createAccount();
    const cookie = await sessionCookie(person.email, tight.url);
    // The runs group is counted by someone else, who first needs a run of their own (one agents request).
    const decider = await db.createAccount();
    const deciderCookie = await sessionCookie(decider.email, tight.url);
    const paused = await (
      await fetch(`${tight.url}/api/agents/ops-agent/generate`, {
        method: 'POST',
        headers: { cookie: deciderCookie, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: '/tool send-email {"to":"a@example.com","subject":"limit","body":"x"}', threadId: newId('limit'), resourceId: decider.id }),
      })
    ).json();
    const call = paused.suspendedToolCalls[0];
    let sent = 0;
    for (const [group, send] of [
      ['agents', () => fetch(`${tight.url}/api/agents/ops-agent/suspended-runs`, { headers: { cookie } })],
      [
        'runs',
        // A stale fingerprint: well-formed and on a reachable run, refused without any change.
        () =>
          fetch(`${tight.url}/api/runs/${paused.runId}/tool-calls/${call.toolCallId}/decision`, {
            method: 'POST',
            headers: { cookie: deciderCookie, 'content-type': 'application/json', 'idempotency-key': `limit-${paused.runId}-${(sent += 1)}` },
            body: JSON.stringify({ approved: true, fingerprint: 'stale' }),
          }),
      ],
    ] as const) {
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 8 && !limited; i += 1) {
        const response = await send();
        statuses.push(response.status);
        if (response.status === 429) limited = response;
        else await response.text();
      }
      expect(statuses[0], group).toBe(group === 'agents' ? 200 : 409);
      expect(limited, `${group}: ${statuses.join(',')}`).toBeDefined();
      expect((await limited!.json()).error.code).toBe('RATE_LIMITED');
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // An answered request's Idempotency-Key is kept; a rate-limited one's is not (its retry runs anew).
    const keys = await db.query<{ key: string }>(`SELECT key FROM idempotency_keys WHERE key LIKE $1 ORDER BY key`, [`limit-${paused.runId}-%`]);
    expect(keys.map((row) => row.key)).not.toContain(`limit-${paused.runId}-${sent}`);
    expect(keys.length).toBe(sent - 1);
  });

  test('sign-up is off by default with a clear code; on a server that enables it, only allowed domains, and always role user', async ({ db, baseURL }) => {
    const signUp = (url: string, email: string) =>
      fetch(`${url}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ email, password: 'a-long-password', name: 'New person', role: 'admin' }),
      });
    const closedEmail = `new-${crypto.randomUUID()}@example.org`;
    const closed = await signUp(baseURL!, closedEmail);
    expect(closed.status).toBe(403);
    const closedBody = await closed.json();
    expect(closedBody.error.code).toBe('SIGN_UP_DISABLED');
    expect(closedBody.code).toBe('SIGN_UP_DISABLED');
    expect(closed.headers.get('set-cookie')).toBeNull();

    for (const email of [`x-${crypto.randomUUID()}@evil.example`, `x-${crypto.randomUUID()}@sub.example.org`]) {
      const refused = await signUp(tight.url, email);
      expect(refused.status, email).toBe(403);
      expect((await refused.json()).error.code, email).toBe('EMAIL_DOMAIN_NOT_ALLOWED');
      expect(await db.query('SELECT 1 FROM users WHERE email = $1', [email])).toHaveLength(0);
    }

    const email = `new-${crypto.randomUUID()}@example.org`;
    const opened = await signUp(tight.url, email);
    expect(opened.status).toBe(200);
    expect(await db.query('SELECT role FROM users WHERE email = $1', [email])).toEqual([{ role: 'user' }]);
    const cookie = opened.headers
      .getSetCookie()
      .map((value) => value.split(';')[0])
      .join('; ');
    expect((await fetch(`${tight.url}/api/inbox`, { headers: { cookie } })).status).toBe(403);
    expect(await db.query('SELECT 1 FROM users WHERE email = $1', [closedEmail])).toHaveLength(0);
  });

  test('failed sign-ins lock the account on every server, however X-Forwarded-For changes; a success clears the count', async ({ db, baseURL }) => {
    const attempt = (url: string, email: string, password: string, ip: string) =>
      fetch(`${url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url, 'x-forwarded-for': ip },
        body: JSON.stringify({ email, password }),
      });
    const victim = await db.createAccount();
    for (let i = 0; i < 5; i += 1) {
      expect((await attempt(baseURL!, victim.email, 'wrong password', `198.51.100.${i}`)).status).toBe(401);
    }
    // Locked: even the right password is refused, here and on the other server (counted in PostgreSQL).
    for (const url of [baseURL!, tight.url]) {
      const locked = await attempt(url, victim.email.toUpperCase(), DEMO_PASSWORD, '198.51.100.99');
      expect(locked.status, url).toBe(429);
      expect((await locked.json()).error.code).toBe('ACCOUNT_LOCKED');
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const [row] = await db.query('SELECT failures, locked_until > now() AS locked FROM sign_in_failures WHERE email = $1', [victim.email]);
    expect(row).toEqual({ failures: 5, locked: true });

    const lucky = await db.createAccount();
    for (let i = 0; i < 4; i += 1) expect((await attempt(tight.url, lucky.email, 'wrong password', '198.51.100.1')).status).toBe(401);
    expect((await attempt(baseURL!, lucky.email, DEMO_PASSWORD, '198.51.100.1')).status).toBe(200);
    expect(await db.query('SELECT 1 FROM sign_in_failures WHERE email = $1', [lucky.email])).toHaveLength(0);
  });

  test('changing a password signs out the other sessions by default', async ({ db, baseURL }) => {
    for (const keep of [undefined, false]) {
      const person = await db.createAccount();
      const [a, b] = [await sessionCookie(person.email), await sessionCookie(person.email)];
      const changed = await fetch(`${baseURL}/api/auth/change-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: baseURL!, cookie: a },
        body: JSON.stringify({ currentPassword: DEMO_PASSWORD, newPassword: 'another-long-password', ...(keep === false ? { revokeOtherSessions: false } : {}) }),
      });
      expect(changed.status).toBe(200);
      const other = await fetch(`${baseURL}/api/agents/ops-agent/suspended-runs`, { headers: { cookie: b } });
      expect(other.status, `revokeOtherSessions ${keep}`).toBe(keep === false ? 200 : 401);
      const sessions = await db.query('SELECT 1 FROM sessions WHERE user_id = $1', [person.id]);
      expect(sessions.length).toBe(keep === false ? 2 : 1);
    }
  });
});

test('a server with an invalid setting exits at start-up instead of serving', async () => {
  const started = Date.now();
  await expect(startServer({ port: extraPort(9), env: { SIGN_UP_ENABLED: 'yes' } })).rejects.toThrow(/did not start/);
  // It exited by itself (startServer gives up on a live but silent server only after 30 s).
  expect(Date.now() - started).toBeLessThan(20_000);
});

test.describe('sign-in limits per client address, behind a trusted proxy', () => {
  let proxied: ExtraServer;
  test.beforeAll(async () => {
    proxied = await startServer({
      port: extraPort(9),
      env: { TRUSTED_PROXIES: '127.0.0.1', SIGN_IN_RATE_LIMIT_PER_MINUTE: '2', COUNTERSIGN_AUTH_RATE_LIMIT: 'on' },
    });
  });
  test.afterAll(async () => {
    await proxied?.kill();
  });

  test('attempts are counted per forwarded address in PostgreSQL; another address is not affected', async ({ db }) => {
    const attempt = (ip: string) =>
      fetch(`${proxied.url}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: proxied.url, 'x-forwarded-for': ip },
        // A different unknown account each time: the per-account lockout plays no part here.
        body: JSON.stringify({ email: `nobody-${crypto.randomUUID()}@example.com`, password: 'wrong password' }),
      });
    const ip = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await attempt(ip)).status);
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(4);
    expect((await attempt('192.0.2.77')).status).toBe(401);
    expect(await db.query(`SELECT 1 FROM rate_limits WHERE key LIKE $1`, [`auth:${ip}|%`])).not.toHaveLength(0);
  });
});
