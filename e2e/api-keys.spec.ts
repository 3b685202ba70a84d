import fs from 'node:fs';
import path from 'node:path';
import { MastraClient } from '@mastra/client-js';
import type { APIRequestContext } from '@playwright/test';
import { ACCOUNTS, expect, signIn, test } from './support';
import { checkAccessible, DESKTOP, MOBILE } from './ui';
import { BASE_URL, DEMO_PASSWORD } from './config';

type Chunk = { type: string; runId: string; payload: Record<string, any> };

/** Creates a key through /api/keys with the context's session (and the demo password, asked again). @returns the secret and the summary */
async function createKey(request: APIRequestContext, body: Record<string, unknown>) {
  const response = await request.post('/api/keys', { data: { password: DEMO_PASSWORD, ...body }, headers: { origin: BASE_URL } });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { secret: string; key: { id: string; scopes: string[]; status: string } };
}

/** A plain request with only the key (no cookies): what a program would send. */
function withKey(key: string, path: string, init: { method?: string; body?: unknown; header?: 'bearer' | 'x-api-key' } = {}) {
  const headers: Record<string, string> = init.header === 'x-api-key' ? { 'x-api-key': key } : { authorization: `Bearer ${key}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${BASE_URL}${path}`, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

/** The write handlers (POST, PUT, PATCH, DELETE) under app/api/inbox, found on disk; dynamic segments become `x`. */
function inboxWriteRoutes(): { method: string; path: string }[] {
  const out: { method: string; path: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'route.ts') {
        const url = `/${path.relative('app', dir).split(path.sep).map((segment) => (segment.startsWith('[') ? 'x' : segment)).join('/')}`;
        for (const [, method] of fs.readFileSync(full, 'utf8').matchAll(/export (?:const|async function|function) (POST|PUT|PATCH|DELETE)\b/g)) out.push({ method, path: url });
      }
    }
  };
  walk('app/api/inbox');
  return out;
}

async function errorCode(response: Response) {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

async function readAll(response: { processDataStream: (input: { onChunk: (chunk: any) => void | Promise<void> }) => Promise<void> }) {
  const chunks: Chunk[] = [];
  await response.processDataStream({ onChunk: (chunk) => void chunks.push(chunk as Chunk) });
  return chunks;
}

test.describe('API keys', () => {
  test('created in /settings/keys (secret shown once), used by @mastra/client-js as its owner, last use listed, revoked in the UI', async ({ page, db }) => {
    await page.goto('/settings/keys');
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    await expect(page.getByTestId('keys-empty').or(page.getByTestId('keys-list'))).toBeVisible();
    // Ada is an end user: the scopes of reviewers and admins are not offered.
    await expect(page.getByRole('checkbox', { name: /inbox:read/ })).toHaveCount(0);
    await expect(page.getByRole('checkbox', { name: /audit:read/ })).toHaveCount(0);
    // Her user id, the agents API's resourceId, is on the page.
    await expect(page.getByTestId('my-user-id')).toHaveText('user-ada');
    const name = `client ${crypto.randomUUID().slice(0, 8)}`;
    await page.getByLabel('Name').fill(name);
    await page.getByRole('checkbox', { name: /decisions:write/ }).check();
    // A wrong password makes no key and says so.
    await page.getByLabel('Your password').fill('not her password');
    await page.getByTestId('create-key').click();
    await expect(page.getByTestId('keys-error')).toContainText(/not your password/i);
    await page.getByLabel('Your password').fill(DEMO_PASSWORD);
    await page.getByLabel('Expires').selectOption('');
    await page.getByTestId('create-key').click();
    const secret = await page.getByTestId('new-key-value').inputValue();
    expect(secret).toMatch(/^cs_[A-Za-z]{64}$/);
    // The shown-once panel (components/ui/shown-once.tsx) passes axe, wide and narrow.
    for (const size of [DESKTOP, MOBILE]) {
      await page.setViewportSize(size);
      await checkAccessible(page, 'api-keys-new-key');
    }
    await page.setViewportSize(DESKTOP);
    await page.getByTestId('new-key-done').click();
    await expect(page.getByTestId('new-key-secret')).toHaveCount(0);
    const row = page.getByTestId('key-row').filter({ hasText: name });
    await expect(row).toContainText('agents:run');
    await expect(row).toContainText('decisions:write');
    await expect(row.getByTestId('key-last-used')).toHaveText('Never');
    // Never shown again, and only a hash is stored.
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    const [stored] = await db.query<{ key: string; reference_id: string }>('SELECT key, reference_id FROM api_keys WHERE name = $1', [name]);
    expect(stored.reference_id).toBe('user-ada');
    expect(stored.key).not.toContain(secret);

    // The seed framework's own client, with nothing but the key.
    const client = new MastraClient({ baseUrl: BASE_URL, headers: { Authorization: `Bearer ${secret}` }, retries: 0 });
    const agent = client.getAgent('ops-agent');
    const threadId = `key-${crypto.randomUUID()}`;
    const memory = { thread: threadId, resource: 'user-ada' };

    // stream → approve
    const first = await readAll(await agent.stream('delete record rec-30', { memory }));
    const approval = first.find((chunk) => chunk.type === 'tool-call-approval')!;
    expect(approval.payload).toMatchObject({ toolName: 'delete-record', args: { id: 'rec-30' } });
    const [run] = await db.query<{ requested_by: string; resource_id: string }>('SELECT requested_by, resource_id FROM runs WHERE id = $1', [approval.runId]);
    expect(run).toEqual({ requested_by: 'user-ada', resource_id: 'user-ada' });
    const approved = await readAll(await agent.approveToolCall({ runId: approval.runId, toolCallId: approval.payload.toolCallId }));
    expect(approved.map((chunk) => chunk.type)).toEqual(expect.arrayContaining(['tool-result', 'finish']));
    expect(await db.recordExists('rec-30')).toBe(false);
    const [decision] = await db.query<{ actor_id: string; actor_role: string }>('SELECT actor_id, actor_role FROM decisions WHERE run_id = $1', [approval.runId]);
    expect(decision).toEqual({ actor_id: 'user-ada', actor_role: 'user' });

    // stream → listSuspendedRuns → decline
    const second = await readAll(await agent.stream('delete record rec-31', { memory }));
    const pending = second.find((chunk) => chunk.type === 'tool-call-approval')!;
    const suspended = await agent.listSuspendedRuns({ threadId });
    expect(suspended.runs.map((r: { runId: string }) => r.runId)).toContain(pending.runId);
    const declined = await readAll(await agent.declineToolCall({ runId: pending.runId, toolCallId: pending.payload.toolCallId, reason: 'keep it' } as any));
    expect(declined.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.payload.text).join('')).toContain('keep it');
    expect(await db.recordExists('rec-31')).toBe(true);

    // a suspended tool → resumeStream
    const weather = await readAll(await agent.stream("what's the weather?", { memory }));
    const question = weather.find((chunk) => chunk.type === 'tool-call-suspended')!;
    expect(question).toBeTruthy();
    const resumed = await readAll(await agent.resumeStream({ city: 'Paris' }, { runId: question.runId, toolCallId: question.payload.toolCallId } as any));
    expect(resumed.find((chunk) => chunk.type === 'tool-result')!.payload.result).toMatchObject({ city: 'Paris' });

    // sendToolApproval by thread and resource
    await readAll(await agent.stream('delete record rec-32', { memory }));
    const sent = await agent.sendToolApproval({ threadId, resourceId: 'user-ada', approved: true } as any);
    expect(sent).toMatchObject({ accepted: true });
    await expect.poll(() => db.recordExists('rec-32')).toBe(false);

    // The key acts as Ada, exactly as her session would: someone else's resource is refused.
    const other = await withKey(secret, '/api/agents/ops-agent/stream', { method: 'POST', body: { messages: 'hi', threadId: `x-${crypto.randomUUID()}`, resourceId: 'user-ben' } });
    expect(other.status).toBe(403);

    await page.reload();
    await expect(row.getByTestId('key-last-used')).not.toHaveText('Never');

    // Revoked in the UI → the client is refused at once.
    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    await page.getByTestId('confirm-revoke').click();
    await expect(row).toHaveAttribute('data-status', 'revoked');
    await expect(row).toContainText('Revoked');
    const refused = await withKey(secret, `/api/agents/ops-agent/suspended-runs?threadId=${threadId}`);
    expect(refused.status).toBe(401);
    expect(await errorCode(refused)).toBe('API_KEY_REVOKED');
    await expect(agent.listSuspendedRuns({ threadId })).rejects.toThrow(/401/);
    const [audit] = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM audit_events WHERE actor_id = 'user-ada' AND target_id = (SELECT id FROM api_keys WHERE name = $1) AND action IN ('api_key.created', 'api_key.revoked')`,
      [name],
    );
    expect(Number(audit.n)).toBe(2);
  });

  test('scopes, roles, expiry, unknown keys, session-only routes and the per-key limit give clear 401/403/429 codes', async ({ request, db, playwright }) => {
    const ada = await createKey(request, { name: 'run only', scopes: ['agents:run'] });
    // A scope beyond the role is refused at creation.
    const tooMuch = await request.post('/api/keys', { data: { name: 'inbox', scopes: ['inbox:read'], password: DEMO_PASSWORD }, headers: { origin: BASE_URL } });
    expect(tooMuch.status()).toBe(403);
    expect((await tooMuch.json()).error.code).toBe('SCOPE_NOT_ALLOWED');

    // agents:run streams (x-api-key works too) but may not decide.
    const threadId = `key-${crypto.randomUUID()}`;
    const paused = await withKey(ada.secret, '/api/agents/ops-agent/generate', {
      method: 'POST',
      header: 'x-api-key',
      body: { messages: 'delete record rec-33', threadId, resourceId: 'user-ada' },
    });
    expect(paused.status).toBe(200);
    const { runId } = (await paused.json()) as { runId: string };
    const approve = await withKey(ada.secret, '/api/agents/ops-agent/approve-tool-call', { method: 'POST', body: { runId } });
    expect(approve.status).toBe(403);
    expect(await errorCode(approve)).toBe('INSUFFICIENT_SCOPE');
    const viaRuns = await withKey(ada.secret, `/api/runs/${runId}/tool-calls/x/decision`, { method: 'POST', body: { approved: true } });
    expect(await errorCode(viaRuns)).toBe('INSUFFICIENT_SCOPE');
    expect(await db.recordExists('rec-33')).toBe(true);
    // The role still applies: Ada's key cannot read the inbox, whatever it says.
    const inbox = await withKey(ada.secret, '/api/inbox');
    expect(inbox.status).toBe(403);
    // Key management and everything else needs a session.
    const keys = await withKey(ada.secret, '/api/keys');
    expect(keys.status).toBe(403);
    expect(await errorCode(keys)).toBe('API_KEY_NOT_ALLOWED');
    // A path that does not exist is 404 for a key as for a session (not 403, as if it existed); a bad key is still 401.
    const missing = await withKey(ada.secret, '/api/no-such-route');
    expect(missing.status).toBe(404);
    expect(await errorCode(missing)).toBe('NOT_FOUND');
    expect((await withKey(`${ada.secret}x`, '/api/no-such-route')).status).toBe(401);

    // A reviewer's inbox:read key reads the inbox; without audit:read nothing more.
    const rita = await playwright.request.newContext({ baseURL: BASE_URL });
    await signIn(rita, ACCOUNTS.rita);
    const ritaKey = await createKey(rita, { name: 'inbox reader', scopes: ['inbox:read'] });
    expect((await withKey(ritaKey.secret, '/api/inbox')).status).toBe(200);
    expect(await errorCode(await withKey(ritaKey.secret, '/api/agents/ops-agent/suspended-runs'))).toBe('INSUFFICIENT_SCOPE');
    // Every write under /api/inbox (found on disk, so a new one is covered) needs decisions:write:
    // refused for the inbox:read key before anything happens, let through for a key that has it.
    const writer = await createKey(rita, { name: 'inbox writer', scopes: ['inbox:read', 'decisions:write'] });
    const writes = inboxWriteRoutes();
    expect(writes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(['POST /api/inbox/calls/x/assignment', 'POST /api/inbox/calls/x/notes']),
    );
    for (const route of writes) {
      const refused = await withKey(ritaKey.secret, route.path, { method: route.method, body: {} });
      expect(refused.status, `${route.method} ${route.path}`).toBe(403);
      expect(await refused.json(), `${route.method} ${route.path}`).toMatchObject({ error: { code: 'INSUFFICIENT_SCOPE', details: { required: 'decisions:write' } } });
      const allowed = await withKey(writer.secret, route.path, { method: route.method, body: {} });
      expect([400, 404], `${route.method} ${route.path} with decisions:write`).toContain(allowed.status);
    }
    await rita.dispose();

    // Unknown and malformed keys.
    const unknown = await withKey('cs_' + 'x'.repeat(64), '/api/inbox');
    expect(unknown.status).toBe(401);
    expect(await errorCode(unknown)).toBe('API_KEY_INVALID');

    // Expired.
    const expiring = await createKey(request, { name: 'short', scopes: ['agents:run'], expiresInDays: 1 });
    await db.query(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [expiring.key.id]);
    const expired = await withKey(expiring.secret, '/api/agents/ops-agent/suspended-runs');
    expect(expired.status).toBe(401);
    expect(await errorCode(expired)).toBe('API_KEY_EXPIRED');

    // Per-key limit: the third request in a minute is 429 with Retry-After; another key is not affected.
    const limited = await createKey(request, { name: 'limited', scopes: ['agents:run'], rateLimitPerMinute: 2 });
    for (let i = 0; i < 2; i += 1) expect((await withKey(limited.secret, '/api/agents/ops-agent/suspended-runs')).status).toBe(200);
    const third = await withKey(limited.secret, '/api/agents/ops-agent/suspended-runs');
    expect(third.status).toBe(429);
    expect(await errorCode(third)).toBe('RATE_LIMITED');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await withKey(ada.secret, '/api/agents/ops-agent/suspended-runs')).status).toBe(200);

    // The plugin's own endpoints are closed: keys are only made through /api/keys (audited, scoped).
    const direct = await request.post('/api/auth/api-key/create', { data: { name: 'sneaky' }, headers: { origin: BASE_URL } });
    expect(direct.status()).toBe(404);
    // Bad input changes nothing.
    const before = await db.query<{ n: string }>(`SELECT count(*) AS n FROM api_keys WHERE reference_id = 'user-ada'`);
    for (const bad of [{ name: '', scopes: ['agents:run'] }, { name: 'x', scopes: [] }, { name: 'x', scopes: ['nope'] }, { name: 'x', scopes: ['agents:run'], expiresInDays: 0 }]) {
      const response = await request.post('/api/keys', { data: { password: DEMO_PASSWORD, ...bad }, headers: { origin: BASE_URL } });
      expect(response.status(), JSON.stringify(bad)).toBe(400);
    }
    expect(await db.query(`SELECT count(*) AS n FROM api_keys WHERE reference_id = 'user-ada'`)).toEqual(before);
  });
});
