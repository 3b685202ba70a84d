import { expect, request as apiRequest, test as base, type APIRequestContext, type Browser, type BrowserContext, type Cookie, type Page } from '@playwright/test';
import pg from 'pg';
import { seed } from '../lib/demo/seed';
import { ACCOUNTS, BASE_URL, DEMO_PASSWORD, E2E_DATABASE_URL } from './config';
import { startStack } from './stack';

/** Direct access to the test database, to assert on real rows. */
export class Db {
  constructor(private readonly client: pg.Client) {}

  async recordExists(id: string): Promise<boolean> {
    const { rowCount } = await this.client.query('SELECT 1 FROM records WHERE id = $1', [id]);
    return rowCount === 1;
  }

  /** Any query, for assertions. */
  async query<T = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query(sql, params)).rows as T[];
  }

  /**
   * A fresh account for a test that must not share counters (rate limits, lockouts) with others:
   * password DEMO_PASSWORD (the hash is copied from Ada's account).
   * @returns its user id and email
   */
  async createAccount(input: { role?: 'user' | 'reviewer' | 'admin'; name?: string } = {}): Promise<{ id: string; email: string }> {
    const id = `test-${crypto.randomUUID()}`;
    const email = `${id}@example.com`;
    await this.client.query('INSERT INTO users (id, name, email, email_verified, role) VALUES ($1, $2, $3, true, $4)', [
      id,
      input.name ?? 'Test person',
      email,
      input.role ?? 'user',
    ]);
    await this.client.query(
      `INSERT INTO accounts (id, account_id, provider_id, user_id, password)
       SELECT $1, $1, 'credential', $1, password FROM accounts WHERE user_id = 'user-ada' AND provider_id = 'credential'`,
      [id],
    );
    return { id, email };
  }

  /**
   * The waiting calls of a thread (of one tool, when given), oldest first; fails the test when there is none.
   * @returns their row ids, run ids, tool call ids and root run and tool call ids
   */
  async pendingIn(threadId: string, toolName?: string) {
    const rows = await this.query<{ id: string; run_id: string; tool_call_id: string; root_run_id: string; root_tool_call_id: string }>(
      `SELECT id, run_id, tool_call_id, root_run_id, root_tool_call_id FROM pending_tool_calls
       WHERE thread_id = $1 AND status = 'pending' AND ($2::text IS NULL OR tool_name = $2) ORDER BY created_at`,
      [threadId, toolName ?? null],
    );
    expect(rows.length, `pending calls in ${threadId}`).toBeGreaterThan(0);
    return rows;
  }

  async pendingCalls(where: { toolName: string; status?: string }) {
    const { rows } = await this.client.query(
      'SELECT run_id, tool_call_id, status FROM pending_tool_calls WHERE tool_name = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at',
      [where.toolName, where.status ?? null],
    );
    return rows as { run_id: string; tool_call_id: string; status: string }[];
  }
}

/** The end user's chat page. */
export class ChatPage {
  constructor(readonly page: Page) {}

  async open(threadId = `e2e-${crypto.randomUUID()}`) {
    await this.page.goto(`/chat/${threadId}`);
    return threadId;
  }

  async send(text: string) {
    await this.page.getByTestId('composer-input').fill(text);
    await this.page.getByTestId('composer-send').click();
  }

  approvalCard(toolName: string) {
    return this.page.locator(`[data-testid="approval-card"][data-tool-name="${toolName}"]`).last();
  }

  questionCard(toolName: string) {
    return this.page.locator(`[data-testid="question-card"][data-tool-name="${toolName}"]`).last();
  }

  lastAssistant() {
    return this.page.getByTestId('message-assistant').last();
  }
}

/**
 * Signs a browser context or API context in (its cookie jar keeps the session).
 * @param email one of ACCOUNTS
 */
export async function signIn(request: APIRequestContext, email: string, baseURL = BASE_URL) {
  const response = await request.post(`${baseURL}/api/auth/sign-in/email`, {
    data: { email, password: DEMO_PASSWORD },
    headers: { origin: baseURL },
  });
  expect(response.status(), `sign-in as ${email}`).toBe(200);
}

/**
 * A session cookie for plain `fetch` calls (several servers share the one database, so a session
 * from any server works on all).
 * @returns the `cookie` header value
 */
export async function sessionCookie(email: string, baseURL = BASE_URL, password = DEMO_PASSWORD): Promise<string> {
  const response = await fetch(`${baseURL}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseURL },
    body: JSON.stringify({ email, password }),
  });
  expect(response.status, `sign-in as ${email}`).toBe(200);
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

/**
 * Sessions this worker already opened on its own server, by email. A sign-in costs the server a
 * deliberately slow password hash (about 0.2 s of CPU on a CI machine), and the suite opens a
 * browser context or API client for someone several hundred times; so a session is opened once and
 * reused while the server accepts it. A test that signs out, revokes or deactivates ends it, and
 * the next test then signs in afresh. Tests of sign-in itself call `signIn` or `sessionCookie`, which
 * always sign in.
 */
const keptSessions = new Map<string, Cookie[]>();

/** Whether the worker's server still accepts a kept session (better-auth's session read, answered from the server's memory). */
async function sessionLives(cookies: Cookie[]): Promise<boolean> {
  const response = await fetch(`${BASE_URL}/api/auth/get-session`, {
    headers: { cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ') },
  });
  if (!response.ok) return false;
  const body = (await response.json()) as { session?: unknown } | null;
  return Boolean(body?.session);
}

/**
 * The cookies of a session of `email` (one of ACCOUNTS, password DEMO_PASSWORD) on this worker's
 * server: a kept one while it lives, else a new sign-in (see keptSessions).
 */
async function sessionCookies(email: string): Promise<Cookie[]> {
  const kept = keptSessions.get(email);
  if (kept && (await sessionLives(kept))) return kept;
  const api = await apiRequest.newContext({ baseURL: BASE_URL });
  try {
    await signIn(api, email);
    const { cookies } = await api.storageState();
    keptSessions.set(email, cookies);
    return cookies;
  } finally {
    await api.dispose();
  }
}

/** Signs a browser context in as `email` on this worker's server, with a kept session when there is one. */
async function useSessionOf(context: BrowserContext, email: string) {
  await context.addCookies(await sessionCookies(email));
}

/** A new browser context signed in as `email` (e.g. a reviewer beside the user's context). */
export async function contextAs(browser: Browser, email: string) {
  const context = await browser.newContext({ baseURL: BASE_URL });
  await useSessionOf(context, email);
  return context;
}

export { ACCOUNTS };

export const test = base.extend<{ db: Db; chat: ChatPage }, { stack: string }>({
  // Each worker runs its tests against a stack of its own (see e2e/config.ts), started before its
  // first test and stopped after its last; a worker restarted after a failure starts a fresh one.
  stack: [
    async ({}, use) => {
      const stack = await startStack();
      await use(stack.url);
      await stack.stop();
    },
    { scope: 'worker', auto: true, timeout: 180_000 },
  ],
  baseURL: async ({ stack }, use) => {
    await use(stack);
  },
  // Unless a test says otherwise, the browser and the API client act as Ada, an end user.
  page: async ({ page }, use) => {
    await useSessionOf(page.context(), ACCOUNTS.ada);
    await use(page);
  },
  request: async ({ playwright, baseURL }, use) => {
    const request = await playwright.request.newContext({ baseURL, storageState: { cookies: await sessionCookies(ACCOUNTS.ada), origins: [] } });
    await use(request);
    await request.dispose();
  },
  db: async ({}, use) => {
    // Every test starts from the seeded demo rows (a deleted record comes back).
    await seed(E2E_DATABASE_URL);
    const client = new pg.Client({ connectionString: E2E_DATABASE_URL });
    await client.connect();
    await use(new Db(client));
    await client.end();
  },
  chat: async ({ page }, use) => {
    await use(new ChatPage(page));
  },
});

export { expect };
