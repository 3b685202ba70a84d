import { ACCOUNTS, expect, sessionCookie, test } from './support';
import { parseSse } from './sse';
import { startServer, type ExtraServer } from './servers';
import { extraPort } from './config';

type Chunk = { type: string; runId: string; payload: Record<string, any> };

/** Starts a send-email run that waits for approval; returns where to decide it. */
async function pendingEmail(baseURL: string, subject: string) {
  const response = await fetch(`${baseURL}/api/agents/ops-agent/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: await sessionCookie(ACCOUNTS.ada, baseURL) },
    body: JSON.stringify({
      messages: `/tool send-email {"to":"ops@example.com","subject":"${subject}","body":"hi"}`,
      threadId: `rel-${crypto.randomUUID()}`,
      resourceId: 'user-ada',
    }),
  });
  const approval = (await parseSse<Chunk>(Buffer.from(await response.arrayBuffer()))).find((chunk) => chunk.type === 'tool-call-approval')!;
  return { runId: approval.runId, toolCallId: approval.payload.toolCallId as string };
}

test.describe('exactly-once decisions', () => {
  let second: ExtraServer;
  test.beforeAll(async () => {
    second = await startServer({ port: extraPort(1) });
  });
  test.afterAll(async () => {
    await second?.kill();
  });

  test('50 concurrent decisions by two reviewers over two servers: one wins, 49 get 409 ALREADY_DECIDED with the winner, the tool ran at most once', async ({ baseURL, db }) => {
    const subject = `race-${crypto.randomUUID()}`;
    const { runId, toolCallId } = await pendingEmail(baseURL!, subject);
    const reviewers = [await sessionCookie(ACCOUNTS.rita, baseURL), await sessionCookie(ACCOUNTS.sam, baseURL)];
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${i % 2 ? second.url : baseURL}/api/runs/${runId}/tool-calls/${toolCallId}/decision`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: reviewers[Math.floor(i / 2) % 2] },
          body: JSON.stringify(i % 3 === 0 ? { approved: false, reason: `no ${i}` } : { approved: true }),
        }).then(async (response) => ({ status: response.status, body: await response.text() })),
      ),
    );
    const winners = responses.filter((response) => response.status === 200);
    const losers = responses.filter((response) => response.status === 409);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(49);
    for (const loser of losers) {
      const error = JSON.parse(loser.body).error;
      expect(error.code).toBe('ALREADY_DECIDED');
      expect(error.details).toMatchObject({ decidedBy: expect.stringMatching(/^reviewer-(rita|sam)$/), outcome: expect.stringMatching(/approved|declined/) });
    }
    const decisions = await db.query('SELECT approved FROM decisions WHERE run_id = $1', [runId]);
    expect(decisions).toHaveLength(1);
    const sent = await db.query('SELECT id FROM outbox_emails WHERE subject = $1', [subject]);
    expect(sent.length).toBe(decisions[0].approved ? 1 : 0);
  });

  test('an Idempotency-Key retry returns the original response and has no second effect', async ({ baseURL, db }) => {
    const subject = `idem-${crypto.randomUUID()}`;
    const { runId, toolCallId } = await pendingEmail(baseURL!, subject);
    const cookie = await sessionCookie(ACCOUNTS.rita, baseURL);
    const send = (url: string) =>
      fetch(`${url}/api/runs/${runId}/tool-calls/${toolCallId}/decision`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `key-${runId}`, cookie },
        body: JSON.stringify({ approved: true }),
      });
    const first = await send(baseURL!);
    const firstBody = await first.text();
    expect(first.status).toBe(200);
    expect(firstBody).toContain('tool-output-available');
    await expect.poll(async () => (await db.query('SELECT status FROM idempotency_keys WHERE key = $1', [`key-${runId}`]))[0]?.status).toBe('done');
    const retry = await send(second.url);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(firstBody);
    expect(await db.query('SELECT id FROM decisions WHERE run_id = $1', [runId])).toHaveLength(1);
    expect(await db.query('SELECT id FROM outbox_emails WHERE subject = $1', [subject])).toHaveLength(1);

    const reused = await fetch(`${baseURL}/api/runs/${runId}/tool-calls/${toolCallId}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `key-${runId}`, cookie },
      body: JSON.stringify({ approved: false }),
    });
    expect(reused.status).toBe(422);
    expect((await reused.json()).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

test.describe('any server continues any run', () => {
  let other: ExtraServer;
  test.beforeAll(async () => {
    other = await startServer({ port: extraPort(7) });
  });
  test.afterAll(async () => {
    await other?.kill();
  });

  test('send-tool-approval on a server that never saw the run, knowing only thread, resource and toolCallId', async ({ baseURL, db }) => {
    const cookie = await sessionCookie(ACCOUNTS.ada, baseURL);
    const threadId = `fresh-${crypto.randomUUID()}`;
    const subject = `fresh-${crypto.randomUUID()}`;
    const started = await fetch(`${baseURL}/api/agents/ops-agent/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ messages: `/tool send-email {"to":"x@example.com","subject":"${subject}","body":"hi"}`, threadId, resourceId: 'user-ada' }),
    });
    const approval = (await parseSse<Chunk>(Buffer.from(await started.arrayBuffer()))).find((chunk) => chunk.type === 'tool-call-approval')!;
    const accepted = await fetch(`${other.url}/api/agents/ops-agent/send-tool-approval`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ threadId, resourceId: 'user-ada', toolCallId: approval.payload.toolCallId, approved: true }),
    });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ accepted: true, runId: approval.runId, toolCallId: approval.payload.toolCallId });
    await expect.poll(async () => (await db.query('SELECT status FROM runs WHERE id = $1', [approval.runId]))[0].status).toBe('completed');
    expect(await db.query('SELECT id FROM outbox_emails WHERE subject = $1', [subject])).toHaveLength(1);
  });
});

test.describe('runs outlive their HTTP request', () => {
  let slow: ExtraServer;
  test.beforeAll(async () => {
    slow = await startServer({ port: extraPort(2), env: { SCRIPTED_MODEL_DELAY_MS: '150' } });
  });
  test.afterAll(async () => {
    await slow?.kill();
  });

  test('closing the connection that triggered a continuation does not stop the run; its output lands in the thread', async ({ db }) => {
    const subject = `detach-${crypto.randomUUID()}`;
    const { runId, toolCallId } = await pendingEmail(slow.url, subject);
    const abort = new AbortController();
    const response = await fetch(`${slow.url}/api/runs/${runId}/tool-calls/${toolCallId}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: await sessionCookie(ACCOUNTS.rita, slow.url) },
      body: JSON.stringify({ approved: true }),
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort();
    await expect
      .poll(async () => (await db.query('SELECT status FROM runs WHERE id = $1', [runId]))[0].status, { timeout: 20_000 })
      .toBe('completed');
    const answer = await db.query(
      `SELECT content FROM messages WHERE run_id = $1 AND role = 'assistant' ORDER BY seq DESC LIMIT 1`,
      [runId],
    );
    expect(JSON.stringify(answer[0].content)).toContain(subject);
  });
});
