import { ACCOUNTS, contextAs, expect, sessionCookie, test } from './support';
import { parseSse } from './sse';
import { startServer, type ExtraServer } from './servers';
import { E2E_PORT } from './config';

type Chunk = { type: string; runId: string; payload: Record<string, any> };

/** Reads an SSE response until `stop` says so, then stops reading (the server keeps the connection). */
async function readUntil(response: Response, stop: (chunk: Chunk) => boolean): Promise<Chunk[]> {
  const seen: Chunk[] = [];
  const reader = response.body!.getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return seen;
    text += new TextDecoder().decode(value);
    const events = await parseSse<Chunk>(text.slice(0, text.lastIndexOf('\n\n') + 2));
    if (events.some(stop)) return events;
  }
}

/** Servers a test started; killed after it even when it fails half-way. */
const servers: ExtraServer[] = [];
test.afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
});

test.describe('crashes (kill -9)', () => {
  test('killed while the model streams: the run is marked failed and the chat says so', async ({ db, chat, page }) => {
    const server = await startServer({ port: E2E_PORT + 3, env: { SCRIPTED_MODEL_DELAY_MS: '400' } });
    servers.push(server);
    const threadId = `crash-${crypto.randomUUID()}`;
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: await sessionCookie(ACCOUNTS.ada, server.url) },
      body: JSON.stringify({ id: threadId, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello there' }] }] }),
    });
    await readUntil(response, (chunk) => chunk.type === 'text-delta');
    await server.kill();

    // Another server's recovery sweep notices the lapsed lease.
    await expect
      .poll(async () => (await db.query('SELECT status FROM runs WHERE thread_id = $1', [threadId]))[0]?.status, { timeout: 40_000 })
      .toBe('failed');
    await chat.open(threadId);
    await expect(page.getByTestId('run-error')).toContainText('interrupted');
  });

  test('killed while a tool executes: the call becomes "outcome unknown", reviewers see it, it is never re-executed', async ({ db, browser }) => {
    const server = await startServer({ port: E2E_PORT + 4, env: { DEMO_TOOL_DELAY_MS: '8000' } });
    servers.push(server);
    const cookie = await sessionCookie(ACCOUNTS.ada, server.url);
    const started = await fetch(`${server.url}/api/agents/ops-agent/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ messages: 'delete record rec-33', threadId: `crash-${crypto.randomUUID()}`, resourceId: 'user-ada' }),
    });
    const approval = (await parseSse<Chunk>(Buffer.from(await started.arrayBuffer()))).find((chunk) => chunk.type === 'tool-call-approval')!;
    const decision = await fetch(`${server.url}/api/runs/${approval.runId}/tool-calls/${approval.payload.toolCallId}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ approved: true }),
    });
    await readUntil(decision, (chunk) => chunk.type === 'data-tool-call-approval');
    await server.kill();

    await expect
      .poll(async () => (await db.query('SELECT status FROM pending_tool_calls WHERE run_id = $1', [approval.runId]))[0]?.status, {
        timeout: 40_000,
      })
      .toBe('unknown');
    expect(await db.recordExists('rec-33')).toBe(true);
    expect((await db.query('SELECT status FROM runs WHERE id = $1', [approval.runId]))[0].status).toBe('failed');

    const reviewer = await contextAs(browser, ACCOUNTS.rita);
    const page = await reviewer.newPage();
    await page.goto('/inbox?status=unknown');
    const row = page.locator(`[data-testid="inbox-row"][data-run-id="${approval.runId}"]`);
    await expect(row).toBeVisible();
    await expect(row).toContainText(/outcome unknown/i);

    // Still not re-executed a while later.
    await page.waitForTimeout(2_000);
    expect(await db.recordExists('rec-33')).toBe(true);
    expect(await db.query('SELECT id FROM decisions WHERE run_id = $1', [approval.runId])).toHaveLength(1);
    await reviewer.close();
  });
});
