import { spawn } from 'node:child_process';
import { anthropic, openai, startFakeProvider, type FakeProvider } from '../test/support/fake-provider';
import { BASE_URL, E2E_DATABASE_URL, E2E_SERVER_ENV, extraPort, nextStartCommand } from './config';
import { startServer, type ExtraServer } from './servers';
import { parseSse } from './sse';
import { ACCOUNTS, expect, signIn, test } from './support';

type ChatMessage = { role: string; parts: { type: string; text?: string; state?: string; errorText?: string; data?: any }[] };

/** POSTs a chat message and reads the UI message stream to its end. */
async function chat(request: import('@playwright/test').APIRequestContext, threadId: string, text: string, baseURL = '') {
  const response = await request.post(`${baseURL}/api/chat`, { data: { id: threadId, messages: [{ role: 'user', parts: [{ type: 'text', text }] }] } });
  expect(response.status()).toBe(200);
  return parseSse<{ type: string; [key: string]: any }>(await response.body());
}

test.describe('malformed model output never aborts a run (the inputs that used to)', () => {
  test('in the chat: the call fails as itself, the agent answers, and a reload shows the whole turn', async ({ chat: page, db }) => {
    const threadId = await page.open();
    await page.send('/tool delete-record {"id":"rec-\\u0000"}');
    const call = page.page.locator('[data-testid="tool-call"][data-tool-name="delete-record"]');
    await expect(call).toHaveAttribute('data-state', 'output-error');
    await expect(call).toContainText('The arguments contain U+0000 (NUL) at $.id; nothing was run.');
    await expect(page.lastAssistant()).toContainText('delete-record failed: The arguments contain U+0000');
    await expect(page.page.getByTestId('run-error')).toHaveCount(0);
    expect(await db.recordExists('rec-1')).toBe(true);

    await page.page.reload();
    await expect(page.page.locator('[data-testid="tool-call"][data-tool-name="delete-record"]')).toHaveAttribute('data-state', 'output-error');
    await expect(page.lastAssistant()).toContainText('delete-record failed');
    expect((await db.query('SELECT status FROM runs WHERE thread_id = $1', [threadId]))[0].status).toBe('completed');
  });

  for (const [line, tool, codePoint] of [
    ['/tool delete-record {"id":"rec-\\ud83d"}', 'delete-record', 'U+D83D'],
    ['/tool lookup-customer {"customerId":"cus-\\udc00x"}', 'lookup-customer', 'U+DC00'],
  ] as const) {
    test(`over HTTP: ${line}`, async ({ request }) => {
      const threadId = `bad-${crypto.randomUUID()}`;
      const chunks = await chat(request, threadId, line);
      expect(chunks.find((chunk) => chunk.type === 'tool-output-error')?.errorText).toContain(codePoint);
      expect(chunks.some((chunk) => chunk.type === 'data-run-error')).toBe(false);
      const { messages } = (await (await request.get(`/api/chat/${threadId}`)).json()) as { messages: ChatMessage[] };
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(messages[1].parts.find((part) => part.type === `tool-${tool}`)).toMatchObject({ state: 'output-error', errorText: expect.stringContaining(codePoint) });
      expect(messages[1].parts.some((part) => part.type === 'text' && part.text!.includes(`${tool} failed`))).toBe(true);
    });
  }
});

test.describe('agents API input', () => {
  const agent = '/api/agents/ops-agent';

  test('a system message is refused with 400 and nothing is stored', async ({ request, db }) => {
    const threadId = `sys-${crypto.randomUUID()}`;
    const response = await request.post(`${agent}/generate`, {
      data: { messages: [{ role: 'system', content: 'x' }], memory: { thread: threadId, resource: 'user-ada' } },
    });
    expect(response.status()).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.message).toContain('system messages cannot be stored');
    expect(await db.query('SELECT 1 FROM threads WHERE id = $1', [threadId])).toHaveLength(0);
    // The thread still works afterwards.
    // (A message no other spec uses as a thread title: titles are numbered per owner.)
    const ok = await request.post(`${agent}/generate`, { data: { messages: 'still usable after a refused system message', memory: { thread: threadId, resource: 'user-ada' } } });
    expect(ok.status()).toBe(200);
  });

  test('input sent as several messages is stored whole and in order', async ({ request, db }) => {
    const threadId = `multi-${crypto.randomUUID()}`;
    const memory = { thread: threadId, resource: 'user-ada' };
    const first = await request.post(`${agent}/generate`, {
      data: { messages: [{ role: 'user', content: 'look up customer cus-2' }, { role: 'user', content: 'look up customer cus-3' }], memory },
    });
    expect(first.status()).toBe(200);
    await request.post(`${agent}/generate`, { data: { messages: 'thanks', memory } });
    const rows = await db.query<{ role: string; content: unknown }>('SELECT role, content FROM messages WHERE thread_id = $1 ORDER BY seq', [threadId]);
    expect(rows.filter((row) => row.role === 'user').map((row) => row.content)).toEqual(['look up customer cus-2', 'look up customer cus-3', 'thanks']);
    expect(rows[0].content).toBe('look up customer cus-2');
    expect(rows[1].content).toBe('look up customer cus-3');
  });
});

test.describe('a real provider that fails (a loopback server speaking its protocol)', () => {
  let fake: FakeProvider;
  let server: ExtraServer;
  const fast = { 'retry-after-ms': '1' };

  test.beforeAll(async () => {
    fake = await startFakeProvider();
    server = await startServer({
      port: extraPort(8),
      env: { OPENAI_COMPATIBLE_BASE_URL: `${fake.url}/v1`, MODEL: 'fake-model', OPENAI_COMPATIBLE_API_KEY: 'sk-e2e-SECRET' },
    });
  });
  test.afterAll(async () => {
    await server?.kill();
    await fake?.close();
  });

  test('generate answers 502 MODEL_PROVIDER_CONFIG on a 401 and 503 MODEL_PROVIDER_BUSY on 429s, without secrets', async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: server.url });
    await signIn(api, ACCOUNTS.ada, server.url);
    const body = (text: string) => ({ data: { messages: text, memory: { thread: `gen-${crypto.randomUUID()}`, resource: 'user-ada' } } });

    fake.reply(openai.error(401));
    const config = await api.post('/api/agents/ops-agent/generate', body('hello'));
    expect(config.status()).toBe(502);
    const configError = (await config.json()).error;
    expect(configError).toMatchObject({ code: 'MODEL_PROVIDER_CONFIG', message: expect.stringContaining('HTTP 401') });
    expect(JSON.stringify(configError)).not.toContain('SECRET');

    fake.reply(openai.error(429, fast), openai.error(429, fast), openai.error(429, fast));
    const busy = await api.post('/api/agents/ops-agent/generate', body('hello'));
    expect(busy.status()).toBe(503);
    expect((await busy.json()).error).toMatchObject({ code: 'MODEL_PROVIDER_BUSY', message: expect.stringContaining('busy (HTTP 429, 3 attempts)') });
    await api.dispose();
  });

  test('in the chat: an approved delete runs, the provider then answers 500, and the user sees that the action happened and only the answer failed', async ({ browser, db }) => {
    const context = await browser.newContext({ baseURL: server.url });
    await signIn(context.request, ACCOUNTS.ada, server.url);
    const page = await context.newPage();
    await page.goto(`/chat/e2e-${crypto.randomUUID()}`);
    fake.reply(openai.toolCalls([{ id: 'call_e2e_1', name: 'delete-record', argChunks: ['{"id":', '"rec-30"}'] }]));
    await page.getByTestId('composer-input').fill('delete record rec-30');
    await page.getByTestId('composer-send').click();
    const card = page.locator('[data-testid="approval-card"][data-tool-name="delete-record"]').last();
    await expect(card).toHaveAttribute('data-state', 'pending');

    fake.reply(openai.error(500, fast), openai.error(500, fast), openai.error(500, fast));
    await card.getByTestId('approve-button').click();
    const error = page.getByTestId('run-error');
    await expect(error).toHaveAttribute('data-code', 'MODEL_PROVIDER_DOWN');
    await expect(error).toContainText('HTTP 500');
    await expect(error).toContainText('Already done before the error: delete-record');
    await expect(card).toHaveAttribute('data-state', 'approved');
    expect(await db.recordExists('rec-30')).toBe(false);

    await page.reload();
    await expect(page.getByTestId('run-error')).toHaveAttribute('data-code', 'MODEL_PROVIDER_DOWN');
    await expect(page.locator('[data-testid="approval-card"][data-tool-name="delete-record"]').last()).toHaveAttribute('data-state', 'approved');
    await context.close();
  });

  test('admins see the model in use on the audit page', async ({ browser }) => {
    const context = await browser.newContext({ baseURL: server.url });
    await signIn(context.request, ACCOUNTS.alex, server.url);
    const page = await context.newPage();
    await page.goto('/audit');
    await expect(page.getByTestId('model-in-use')).toHaveText(`Model: openai-compatible fake-model at ${fake.url}/v1`);
    await context.close();
  });
});

test('the default server shows the offline scripted model to admins', async ({ browser }) => {
  const context = await browser.newContext();
  await signIn(context.request, ACCOUNTS.alex);
  const page = await context.newPage();
  await page.goto('/audit');
  await expect(page.getByTestId('model-in-use')).toHaveText('Model: local/scripted (offline scripted model)');
  await context.close();
});

test.describe('starting `next start`: a bad environment stops it; a good one logs the model in use', () => {
  /** Starts `next start` with `env` and waits for it to exit, or kills it once `until` shows in its output (or after 30 s). */
  function startWith(env: Record<string, string>, until?: string) {
    return new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(...nextStartCommand(extraPort(9)), {
        env: { ...process.env, ...E2E_SERVER_ENV, DATABASE_URL: E2E_DATABASE_URL, NEXT_DIST_DIR: '.next-e2e', ...env },
      });
      let output = '';
      const collect = (data: Buffer) => {
        output += data;
        if (until && output.includes(until)) child.kill('SIGTERM');
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  test('CHAT_RATE_LIMIT_PER_MINUTE=abc: exit 1, naming the variable and what it accepts', async () => {
    const { code, output } = await startWith({ CHAT_RATE_LIMIT_PER_MINUTE: 'abc' });
    expect(code).toBe(1);
    expect(output).toContain('CHAT_RATE_LIMIT_PER_MINUTE="abc" is not valid');
    expect(output).toContain('whole number 1–100000');
  });

  test('a complete provider configuration starts and logs the model in use (never its key)', async () => {
    const { output } = await startWith(
      { OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1', MODEL: 'llama3.1', OPENAI_COMPATIBLE_API_KEY: 'sk-log-SECRET' },
      '[countersign] model:',
    );
    expect(output).toContain('[countersign] model: openai-compatible llama3.1 at http://127.0.0.1:9/v1');
    expect(output).not.toContain('SECRET');
  });

  test('production without BETTER_AUTH_SECRET: exit 1, naming it, instead of serving 500s', async () => {
    const { code, output } = await startWith({ BETTER_AUTH_SECRET: '' });
    expect(code).toBe(1);
    expect(output).toContain('BETTER_AUTH_SECRET is required in production');
  });

  test('a base URL without MODEL: exit 1 instead of a silent fallback to the scripted model', async () => {
    const { code, output } = await startWith({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(code).toBe(1);
    expect(output).toContain('MODEL is required with OPENAI_COMPATIBLE_BASE_URL');
  });
});

// Anthropic's stream format is covered in test/integration/providers.test.ts; one check here that
// the Anthropic package is wired through the env module in a built server too.
test.describe('Anthropic through a built server', () => {
  test('a refusal is shown to the user as such', async ({ playwright }) => {
    const fake = await startFakeProvider();
    const server = await startServer({ port: extraPort(8), env: { ANTHROPIC_API_KEY: 'sk-ant-e2e', ANTHROPIC_BASE_URL: `${fake.url}/v1`, MODEL: 'claude-fake' } });
    try {
      const api = await playwright.request.newContext({ baseURL: server.url });
      await signIn(api, ACCOUNTS.ada, server.url);
      fake.reply(anthropic.text([], { stopReason: 'refusal' }));
      const chunks = await chat(api, `ref-${crypto.randomUUID()}`, 'something it will not do');
      expect(chunks.find((chunk) => chunk.type === 'data-run-error')?.data).toMatchObject({ code: 'MODEL_REFUSED' });
      expect(fake.requests[0].headers['x-api-key']).toBe('sk-ant-e2e');
      await api.dispose();
    } finally {
      await server.kill();
      await fake.close();
    }
  });
});
