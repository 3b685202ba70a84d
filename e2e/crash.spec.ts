import http from 'node:http';
import { ACCOUNTS, contextAs, expect, sessionCookie, test } from './support';
import { parseSse } from './sse';
import { startServer, type ExtraServer } from './servers';
import { BASE_URL, extraPort } from './config';

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
const closers: (() => Promise<void>)[] = [];
test.afterEach(async () => {
  await Promise.all([...servers.splice(0).map((server) => server.kill()), ...closers.splice(0).map((close) => close())]);
});

/**
 * A tiny load balancer: requests go to `primary` until it is gone (a refused connection, or
 * `failOver()`), then to `fallback`. A response cut off by the primary's death is cut off for the
 * browser too. The Host header is kept, so both servers see the proxy's origin.
 */
async function startFailoverProxy(input: { port: number; primary: string; fallback: string }) {
  let primaryUp = true;
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (request, response) => {
    const body: Buffer[] = [];
    for await (const part of request) body.push(part as Buffer);
    const forward = (target: string) => {
      const upstream = http.request(new URL(request.url ?? '/', target), { method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
        answer.on('error', () => response.destroy());
        answer.on('aborted', () => response.destroy());
      });
      upstream.on('error', () => {
        if (target === input.primary && !response.headersSent) {
          primaryUp = false;
          forward(input.fallback);
        } else {
          response.destroy();
        }
      });
      upstream.end(Buffer.concat(body));
    };
    forward(primaryUp ? input.primary : input.fallback);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(input.port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${input.port}`,
    failOver: () => {
      primaryUp = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

test.describe('crashes (kill -9)', () => {
  test('killed while the model streams: another server continues the run and the open chat finishes without any action', async ({ db, page }) => {
    test.setTimeout(120_000);
    // Server A streams slowly; the main test server (B) shares its database. The browser talks to
    // both through a failover proxy, as it would through a load balancer.
    const a = await startServer({ port: extraPort(3), env: { SCRIPTED_MODEL_DELAY_MS: '300' } });
    servers.push(a);
    const proxy = await startFailoverProxy({ port: extraPort(6), primary: a.url, fallback: BASE_URL });
    closers.push(proxy.close);
    const threadId = `crash-${crypto.randomUUID()}`;
    await page.goto(`${proxy.url}/chat/${threadId}`);
    await page.getByTestId('composer-input').fill('look up customer cus-1');
    await page.getByTestId('composer-send').click();

    // The lookup ran on A and its answer has begun to stream; then A dies mid-stream.
    await expect.poll(async () => (await db.query('SELECT id FROM runs WHERE thread_id = $1', [threadId])).length, { timeout: 30_000 }).toBe(1);
    const runId = (await db.query('SELECT id FROM runs WHERE thread_id = $1', [threadId]))[0].id as string;
    await expect
      .poll(async () => Number((await db.query(`SELECT count(*) AS n FROM run_events WHERE run_id = $1 AND chunk->>'type' = 'text-delta'`, [runId]))[0].n), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    await a.kill();
    proxy.failOver();

    // Nobody touches the page: the chat reconnects, B takes the run over and the answer completes.
    await expect.poll(async () => (await db.query('SELECT status FROM runs WHERE id = $1', [runId]))[0].status, { timeout: 60_000 }).toBe('completed');
    const events = (await db.query('SELECT chunk FROM run_events WHERE run_id = $1 ORDER BY id', [runId])).map((row) => row.chunk as Chunk);
    const answer = events.filter((chunk: Chunk) => chunk.type === 'text-delta').map((chunk: Chunk) => chunk.payload.text).join('');
    expect(answer).toContain('Grace Hopper');
    const assistant = page.getByTestId('message-assistant').last();
    await expect(assistant).toContainText(answer.trim(), { timeout: 30_000 });
    await expect(page.getByTestId('composer-send')).toBeVisible();
    // The answer shows once (the dead server's partial copy was dropped), with no error.
    expect((await assistant.innerText()).split(answer.trim().slice(0, 24)).length - 1).toBe(1);
    await expect(page.getByTestId('run-error')).toHaveCount(0);
    // One run, finished; the lookup ran once; no error was recorded.
    expect(await db.query('SELECT status FROM runs WHERE thread_id = $1', [threadId])).toEqual([{ status: 'completed' }]);
    expect(events.filter((chunk: Chunk) => chunk.type === 'tool-result')).toHaveLength(1);
    expect(events.filter((chunk: Chunk) => chunk.type === 'error')).toHaveLength(0);
    expect(events.filter((chunk: Chunk) => chunk.type === 'start' && chunk.payload.takeover)).toHaveLength(1);

    // A reload shows the same answer, once.
    await page.reload();
    await expect(page.getByTestId('message-assistant').last()).toContainText(answer.trim());
    expect((await page.getByTestId('message-assistant').last().innerText()).split(answer.trim().slice(0, 24)).length - 1).toBe(1);
  });

  test('killed while a tool executes: the call becomes "outcome unknown", reviewers see it, it is never re-executed', async ({ db, browser }) => {
    const server = await startServer({ port: extraPort(4), env: { DEMO_TOOL_DELAY_MS: '8000' } });
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
