import { ACCOUNTS, expect, signIn, test } from './support';
import { parseSse } from './sse';

type Chunk = { type: string; runId: string; from: string; payload: Record<string, any> };
const agent = '/api/agents/ops-agent';
const ids = () => ({ threadId: `api-${crypto.randomUUID()}`, resourceId: 'user-ada' });

test.describe('agents HTTP API (the seed framework’s routes and shapes)', () => {
  test('stream → approve-tool-call over SSE; decline-tool-call with a reason', async ({ request, db }) => {
    const started = await request.post(`${agent}/stream`, { data: { messages: 'delete record rec-20', ...ids() } });
    expect(started.status()).toBe(200);
    expect(started.headers()['content-type']).toContain('text/event-stream');
    expect(started.headers()['x-accel-buffering']).toBe('no');
    const chunks = await parseSse<Chunk>(await started.body());
    const approval = chunks.find((chunk) => chunk.type === 'tool-call-approval')!;
    expect(approval).toMatchObject({ from: 'AGENT', payload: { toolName: 'delete-record', args: { id: 'rec-20' } } });
    expect(JSON.parse(approval.payload.resumeSchema).properties.approved.type).toBe('boolean');

    const approved = await request.post(`${agent}/approve-tool-call`, {
      data: { runId: approval.runId, toolCallId: approval.payload.toolCallId },
    });
    const after = await parseSse<Chunk>(await approved.body());
    expect(after.map((chunk) => chunk.type)).toEqual(expect.arrayContaining(['tool-call-resumed', 'tool-result', 'finish']));
    expect(await db.recordExists('rec-20')).toBe(false);

    const second = await parseSse<Chunk>(
      await (await request.post(`${agent}/stream`, { data: { messages: 'delete record rec-21', memory: { thread: ids().threadId, resource: 'user-ada' } } })).body(),
    );
    const pending = second.find((chunk) => chunk.type === 'tool-call-approval')!;
    const declined = await request.post(`${agent}/decline-tool-call`, {
      data: { runId: pending.runId, toolCallId: pending.payload.toolCallId, reason: 'not this one' },
    });
    const text = (await parseSse<Chunk>(await declined.body()))
      .filter((chunk) => chunk.type === 'text-delta')
      .map((chunk) => chunk.payload.text)
      .join('');
    expect(text).toContain('not this one');
    expect(await db.recordExists('rec-21')).toBe(true);
  });

  test('generate → suspended; the -generate variants and resume-stream return the continuation', async ({ request }) => {
    const paused = await (await request.post(`${agent}/generate`, { data: { messages: 'delete record rec-22', ...ids() } })).json();
    expect(paused).toMatchObject({ finishReason: 'suspended', suspendPayload: { toolName: 'delete-record', args: { id: 'rec-22' } } });
    expect(paused.runId).toEqual(expect.any(String));
    const approved = await (await request.post(`${agent}/approve-tool-call-generate`, { data: { runId: paused.runId } })).json();
    expect(approved).toMatchObject({ finishReason: 'stop', toolResults: [{ toolName: 'delete-record' }] });
    expect(approved.text).toContain('Record rec-22 was deleted');

    const paused2 = await (await request.post(`${agent}/generate`, { data: { messages: 'delete record rec-23', ...ids() } })).json();
    const declined = await (
      await request.post(`${agent}/decline-tool-call-generate`, { data: { runId: paused2.runId, reason: 'keep' } })
    ).json();
    expect(declined.text).toContain('keep');

    const weather = await (await request.post(`${agent}/generate`, { data: { messages: "what's the weather?", ...ids() } })).json();
    expect(weather.suspendPayload).toEqual({ message: 'Which city should I check the weather for?' });
    const bad = await request.post(`${agent}/resume-stream`, { data: { runId: weather.runId, resumeData: { city: '' } } });
    expect(bad.status()).toBe(422);
    expect((await bad.json()).error.code).toBe('INVALID_RESUME_DATA');
    const resumed = await parseSse<Chunk>(await (await request.post(`${agent}/resume-stream`, { data: { runId: weather.runId, resumeData: { city: 'Tokyo' } } })).body());
    expect(resumed.find((chunk) => chunk.type === 'tool-result')!.payload.result).toMatchObject({ city: 'Tokyo' });
  });

  test('suspended-runs filters by thread, resource and date and paginates only with page and perPage', async ({ request, playwright, baseURL }) => {
    const mine = ids();
    for (const record of ['rec-24', 'rec-25', 'rec-26']) {
      await request.post(`${agent}/generate`, { data: { messages: `delete record ${record}`, ...mine } });
    }
    const all = await (await request.get(`${agent}/suspended-runs?threadId=${mine.threadId}`)).json();
    expect(all.total).toBe(3);
    expect(all.runs).toHaveLength(3);
    expect(all.runs[0]).toMatchObject({ status: 'suspended', threadId: mine.threadId, resourceId: 'user-ada' });
    expect(all.runs[0].toolCalls[0]).toMatchObject({ toolName: 'delete-record', requiresApproval: true });

    const page = await (await request.get(`${agent}/suspended-runs?threadId=${mine.threadId}&page=1&perPage=2`)).json();
    expect(page.total).toBe(3);
    expect(page.runs).toHaveLength(1);
    const onlyPerPage = await (await request.get(`${agent}/suspended-runs?threadId=${mine.threadId}&perPage=2`)).json();
    expect(onlyPerPage.runs).toHaveLength(3);

    const future = new Date(Date.now() + 60_000).toISOString();
    const none = await (await request.get(`${agent}/suspended-runs?threadId=${mine.threadId}&fromDate=${future}`)).json();
    expect(none.total).toBe(0);
    // An end user asking for someone else's runs still sees only their own.
    const other = await (await request.get(`${agent}/suspended-runs?threadId=${mine.threadId}&resourceId=someone-else`)).json();
    expect(other.total).toBe(3);
    // A reviewer may filter by any resource.
    const reviewer = await playwright.request.newContext();
    await signIn(reviewer, ACCOUNTS.rita);
    const none2 = await (await reviewer.get(`${baseURL}${agent}/suspended-runs?threadId=${mine.threadId}&resourceId=someone-else`)).json();
    expect(none2.total).toBe(0);
    const ada = await (await reviewer.get(`${baseURL}${agent}/suspended-runs?threadId=${mine.threadId}&resourceId=user-ada`)).json();
    expect(ada.total).toBe(3);
    await reviewer.dispose();

    for (const query of ['perPage=0', 'perPage=1.5', 'page=-1&perPage=2', 'fromDate=not-a-date']) {
      const response = await request.get(`${agent}/suspended-runs?${query}`);
      expect(response.status(), query).toBe(400);
      expect((await response.json()).error.code).toBe('BAD_REQUEST');
    }
  });

  test('send-tool-approval finds the call by thread and resource alone; several pending without toolCallId is ambiguous', async ({ request, db }) => {
    const mine = ids();
    await request.post(`${agent}/generate`, { data: { messages: 'delete record rec-27', ...mine } });
    const accepted = await request.post(`${agent}/send-tool-approval`, { data: { ...mine, approved: true } });
    expect(accepted.status()).toBe(200);
    expect(await accepted.json()).toMatchObject({ accepted: true, runId: expect.any(String), toolCallId: expect.any(String) });
    await expect.poll(() => db.recordExists('rec-27')).toBe(false);

    const two = ids();
    await request.post(`${agent}/generate`, {
      data: { messages: '/tool delete-record {"id":"rec-28"}\n/tool delete-record {"id":"rec-29"}', ...two },
    });
    const ambiguous = await request.post(`${agent}/send-tool-approval`, { data: { ...two, approved: false } });
    expect(ambiguous.status()).toBe(409);
    expect((await ambiguous.json()).error.code).toBe('AMBIGUOUS_TOOL_CALL');
    expect(await db.recordExists('rec-28')).toBe(true);
  });

  test('the agents decision routes take Idempotency-Key: a retry replays the first response and decides once; another body with the key is refused', async ({ request, db }) => {
    const paused = await (await request.post(`${agent}/generate`, { data: { messages: 'delete record rec-31', ...ids() } })).json();
    expect(paused.finishReason).toBe('suspended');
    const key = `agents-${crypto.randomUUID()}`;
    const approve = (data: object) => request.post(`${agent}/approve-tool-call-generate`, { headers: { 'idempotency-key': key }, data });
    const first = await approve({ runId: paused.runId });
    expect(first.status()).toBe(200);
    const firstBody = await first.json();
    expect(firstBody).toMatchObject({ finishReason: 'stop', toolResults: [{ toolName: 'delete-record' }] });
    expect(await db.recordExists('rec-31')).toBe(false);

    // The stored copy lands once the first response has been read; until then a retry is told to wait.
    await expect
      .poll(async () => (await db.query('SELECT status FROM idempotency_keys WHERE key = $1', [key]))[0]?.status)
      .toBe('done');
    const retry = await approve({ runId: paused.runId });
    expect(retry.status()).toBe(200);
    expect(retry.headers()['idempotent-replayed']).toBe('true');
    expect(await retry.json()).toEqual(firstBody);
    const decisions = await db.query('SELECT approved FROM decisions WHERE run_id = $1', [paused.runId]);
    expect(decisions).toEqual([{ approved: true }]);

    const other = await approve({ runId: paused.runId, toolCallId: 'another-call' });
    expect(other.status()).toBe(422);
    expect((await other.json()).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // Without the key an approval of that call reaches the runtime again, which refuses it: the replay above did not.
    const toolCallId = paused.suspendedToolCalls[0].toolCallId;
    const again = await request.post(`${agent}/approve-tool-call-generate`, { data: { runId: paused.runId, toolCallId } });
    expect(again.status()).toBe(409);
    expect((await again.json()).error.code).toBe('ALREADY_DECIDED');

    // The streaming door too: the SSE body is replayed as it was sent.
    const streamed = await (await request.post(`${agent}/generate`, { data: { messages: 'delete record rec-32', ...ids() } })).json();
    const sseKey = `agents-${crypto.randomUUID()}`;
    const decline = () =>
      request.post(`${agent}/decline-tool-call`, { headers: { 'idempotency-key': sseKey }, data: { runId: streamed.runId, reason: 'keep it' } });
    const firstSse = await (await decline()).text();
    expect(firstSse).toContain('tool-output-denied');
    await expect
      .poll(async () => (await db.query('SELECT status FROM idempotency_keys WHERE key = $1', [sseKey]))[0]?.status)
      .toBe('done');
    const replayed = await decline();
    expect(replayed.headers()['idempotent-replayed']).toBe('true');
    expect(await replayed.text()).toBe(firstSse);
    expect(await db.query('SELECT approved FROM decisions WHERE run_id = $1', [streamed.runId])).toEqual([{ approved: false }]);
    expect(await db.recordExists('rec-32')).toBe(true);
  });

  test('missing ids and malformed bodies are 400 with a JSON error; unknown runs are 404', async ({ request }) => {
    const cases: [string, unknown][] = [
      ['stream', { messages: 'hi' }],
      // Without a thread id (a missing resourceId is the caller's own: issue 30, item 9).
      ['generate', { messages: 'hi', resourceId: 'user-ada' }],
      ['approve-tool-call', {}],
      ['decline-tool-call', { toolCallId: 'x' }],
      ['resume-stream', { resumeData: {} }],
      ['send-tool-approval', { approved: true }],
    ];
    for (const [route, body] of cases) {
      const response = await request.post(`${agent}/${route}`, { data: body as object });
      expect(response.status(), route).toBe(400);
      expect((await response.json()).error).toMatchObject({ code: 'BAD_REQUEST', message: expect.any(String) });
    }
    const invalidJson = await request.post(`${agent}/stream`, { headers: { 'content-type': 'application/json' }, data: Buffer.from('{nope') });
    expect(invalidJson.status()).toBe(400);
    expect((await invalidJson.json()).error.code).toBe('INVALID_JSON');
    const unknown = await request.post(`${agent}/approve-tool-call`, { data: { runId: 'no-such-run' } });
    expect(unknown.status()).toBe(404);
    expect((await unknown.json()).error.code).toBe('NO_SNAPSHOT_FOUND');
    const noAgent = await request.post('/api/agents/nobody/stream', { data: { messages: 'hi', ...ids() } });
    expect(noAgent.status()).toBe(404);
  });

  test('a thread id the chat cannot open (space, /, %, ?, #, 150 characters) is 400 on every route that takes one, and no thread is written', async ({ request, db }) => {
    const tag = crypto.randomUUID();
    const bad = [`bad ${tag}`, `bad/${tag}`, `bad%${tag}`, `bad?x#${tag}`, `bad-${tag}-`.padEnd(150, 'x')];
    for (const threadId of bad) {
      const refusals = [
        ['stream', await request.post(`${agent}/stream`, { data: { messages: 'look up customer cus-1', threadId, resourceId: 'user-ada' } })],
        ['stream, memory form', await request.post(`${agent}/stream`, { data: { messages: 'look up customer cus-1', memory: { thread: threadId, resource: 'user-ada' } } })],
        ['generate', await request.post(`${agent}/generate`, { data: { messages: 'look up customer cus-1', threadId, resourceId: 'user-ada' } })],
        ['send-tool-approval', await request.post(`${agent}/send-tool-approval`, { data: { threadId, resourceId: 'user-ada', approved: true } })],
        ['suspended-runs', await request.get(`${agent}/suspended-runs?threadId=${encodeURIComponent(threadId)}`)],
        ['rename', await request.patch(`/api/threads/${encodeURIComponent(threadId)}`, { data: { title: 'x' } })],
        ['delete', await request.delete(`/api/threads/${encodeURIComponent(threadId)}`)],
        ['chat messages', await request.get(`/api/chat/${encodeURIComponent(threadId)}`)],
      ] as const;
      for (const [route, response] of refusals) {
        expect(response.status(), `${route} with ${JSON.stringify(threadId)}`).toBe(400);
        expect((await response.json()).error, route).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('a thread id is 1–100 letters, digits, - or _') });
      }
    }
    expect(await db.query('SELECT id FROM threads WHERE id = ANY($1) OR id LIKE $2', [bad, `%${tag}%`])).toEqual([]);
    expect(await db.query('SELECT id FROM runs WHERE thread_id = ANY($1) OR thread_id LIKE $2', [bad, `%${tag}%`])).toEqual([]);
  });
});
