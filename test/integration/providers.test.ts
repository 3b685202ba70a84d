import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentChunk } from '../../lib/agent/chunks';
import { parseEnv } from '../../lib/env';
import { resolveModel } from '../../lib/models';
import { toUIChunks } from '../../lib/ui-stream/map';
import { anthropic, anthropicRequiresThinking, openai, openaiRequiresReasoning, responses, startFakeProvider, type FakeProvider, type Reply } from '../support/fake-provider';
import { collect, createRuntime, databaseUrl, newThreadId, only } from '../support/harness';

/**
 * The real provider packages (@ai-sdk/openai-compatible, @ai-sdk/anthropic), configured through
 * the env module as a deployment would be, talking to a loopback server that replays recorded-shape
 * streams. Each test asserts what the user sees and the exact requests the provider received.
 */

const user = { id: 'user-ada', role: 'user' as const };
let loadThreadUIMessages: typeof import('../../lib/chat/threads').loadThreadUIMessages;

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  ({ loadThreadUIMessages } = await import('../../lib/chat/threads'));
});

type Wire = {
  name: string;
  env: (url: string) => Record<string, string>;
  stream: typeof openai | typeof anthropic;
  callId: (n: number) => string;
  /** The conversation part of a request body (no system prompt), in that provider's format; JSON tool results parsed. */
  conversation: (body: any) => unknown[];
  user: (text: string) => unknown;
  assistantText: (text: string) => unknown;
  toolCalls: (calls: { id: string; name: string; args: object }[]) => unknown;
  toolResults: (results: { id: string; content: unknown; error?: boolean }[]) => unknown[];
  /** A tool-result message followed by the next user message (Anthropic merges them into one). */
  resultsThenUser: (results: { id: string; content: unknown; error?: boolean }[], text: string) => unknown[];
  secret: string;
};

const WIRES: Wire[] = [
  {
    name: 'OpenAI-compatible',
    env: (url) => ({ OPENAI_COMPATIBLE_BASE_URL: `${url}/v1`, MODEL: 'fake-model', OPENAI_COMPATIBLE_API_KEY: 'sk-test-SECRET' }),
    stream: openai,
    callId: (n) => `call_${n}`,
    conversation: (body) => parsedResults(body.messages.filter((message: { role: string }) => message.role !== 'system')),
    user: (text) => ({ role: 'user', content: text }),
    assistantText: (text) => ({ role: 'assistant', content: text }),
    toolCalls: (calls) => ({
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } })),
    }),
    toolResults: (results) => results.map((result) => ({ role: 'tool', tool_call_id: result.id, content: result.content })),
    resultsThenUser: (results, text) => [...results.map((result) => ({ role: 'tool', tool_call_id: result.id, content: result.content })), { role: 'user', content: text }],
    secret: 'SECRET',
  },
  {
    name: 'Anthropic',
    env: (url) => ({ ANTHROPIC_API_KEY: 'sk-ant-SECRET', ANTHROPIC_BASE_URL: `${url}/v1`, MODEL: 'anthropic/claude-fake' }),
    stream: anthropic,
    callId: (n) => `toolu_0${n}`,
    conversation: (body) => parsedResults(body.messages),
    user: (text) => ({ role: 'user', content: [{ type: 'text', text }] }),
    assistantText: (text) => ({ role: 'assistant', content: [{ type: 'text', text }] }),
    toolCalls: (calls) => ({ role: 'assistant', content: calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args })) }),
    toolResults: (results) => [{ role: 'user', content: results.map(anthropicResult) }],
    resultsThenUser: (results, text) => [{ role: 'user', content: [...results.map(anthropicResult), { type: 'text', text }] }],
    secret: 'SECRET',
  },
];

function anthropicResult(result: { id: string; content: unknown; error?: boolean }) {
  return { type: 'tool_result', tool_use_id: result.id, content: result.content, ...(result.error ? { is_error: true } : {}) };
}

/** Tool-result contents as JSON values where they are JSON (key order is not part of the wire contract). */
function parsedResults(messages: any[]): any[] {
  const parse = (content: unknown) => {
    if (typeof content !== 'string') return content;
    try {
      return JSON.parse(content);
    } catch {
      return content;
    }
  };
  return messages.map((message) => {
    if (message.role === 'tool') return { ...message, content: parse(message.content) };
    if (Array.isArray(message.content)) {
      return { ...message, content: message.content.map((part: any) => (part.type === 'tool_result' ? { ...part, content: parse(part.content) } : part)) };
    }
    return message;
  });
}

/** What the chat shows for a segment: its UI chunks' data-run-error parts and text. */
function seen(chunks: AgentChunk[], runId: string) {
  const ui = chunks.flatMap((chunk) => toUIChunks(chunk, runId));
  return {
    text: ui.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join(''),
    errors: ui.flatMap((chunk) => (chunk.type === 'data-run-error' ? [chunk.data as { message: string; code?: string }] : [])),
    outputs: ui.flatMap((chunk) => (chunk.type === 'tool-output-available' ? [chunk.output] : [])),
  };
}

const fast = { 'retry-after-ms': '1' };

for (const wire of WIRES) {
  describe(`${wire.name} through its real provider package`, () => {
    let fake: FakeProvider;
    let rt: Awaited<ReturnType<typeof createRuntime>>;

    beforeAll(async () => {
      fake = await startFakeProvider();
      rt = await createRuntime({ model: resolveModel(parseEnv(wire.env(fake.url))) });
    });
    afterAll(async () => {
      await fake.close();
      await rt.close();
    });

    /** Starts a turn with the next replies queued; returns what was streamed. */
    async function turn(threadId: string, text: string, ...replies: Reply[]) {
      fake.reply(...replies);
      const from = fake.requests.length;
      const started = await rt.agent.stream(text, { threadId, resourceId: user.id });
      const chunks = await collect(started.fullStream);
      return { runId: started.runId, chunks, requests: fake.requests.slice(from) };
    }

    async function approve(runId: string, toolCallId: string | undefined, ...replies: Reply[]) {
      fake.reply(...replies);
      const from = fake.requests.length;
      const cont = await rt.agent.approveToolCall({ runId, toolCallId, actor: user });
      return { chunks: await collect(cont.fullStream), requests: fake.requests.slice(from) };
    }

    it('tool-call args split across deltas pause for approval; approved, the call runs once and its result goes back in the wire format', async () => {
      const threadId = newThreadId();
      const id = wire.callId(1);
      const paused = await turn(threadId, 'delete record rec-41', wire.stream.toolCalls([{ id, name: 'delete-record', argChunks: ['{"i', 'd": "rec', '-41"}'] }]));
      expect(only(paused.chunks, 'tool-call-approval')[0].payload).toMatchObject({ toolCallId: id, toolName: 'delete-record', args: { id: 'rec-41' } });
      expect(paused.requests[0].body).toMatchObject({ model: wire.name === 'Anthropic' ? 'claude-fake' : 'fake-model', stream: true });
      expect(wire.conversation(paused.requests[0].body)).toEqual([wire.user('delete record rec-41')]);
      expect(await rt.db.record.count({ where: { id: 'rec-41' } })).toBe(1);

      const done = await approve(paused.runId, id, wire.stream.text(['Deleted ', 'rec-41.']));
      expect(seen(done.chunks, paused.runId).text).toBe('Deleted rec-41.');
      expect(await rt.db.record.count({ where: { id: 'rec-41' } })).toBe(0);
      expect(done.requests).toHaveLength(1);
      expect(wire.conversation(done.requests[0].body)).toEqual([
        wire.user('delete record rec-41'),
        wire.toolCalls([{ id, name: 'delete-record', args: { id: 'rec-41' } }]),
        ...wire.toolResults([{ id, content: { id: 'rec-41', deleted: true, message: 'Record rec-41 was deleted.' } }]),
      ]);
    });

    it('a decline reaches the provider as a tool result saying a person declined it and it was NOT executed, with the reason; nothing runs', async () => {
      const threadId = newThreadId();
      const id = wire.callId(2);
      const paused = await turn(threadId, 'delete record rec-42', wire.stream.toolCalls([{ id, name: 'delete-record', argChunks: ['{"id":"rec-42"}'] }]));
      fake.reply(wire.stream.text(['Kept it.']));
      const from = fake.requests.length;
      const cont = await rt.agent.declineToolCall({ runId: paused.runId, toolCallId: id, actor: user, reason: 'keep it for the audit' });
      const chunks = await collect(cont.fullStream);
      expect(only(chunks, 'tool-output-denied')[0].payload.approval).toEqual({ approved: false, reason: 'keep it for the audit' });
      expect(await rt.db.record.count({ where: { id: 'rec-42' } })).toBe(1);
      expect(wire.conversation(fake.requests[from].body).slice(1)).toEqual([
        wire.toolCalls([{ id, name: 'delete-record', args: { id: 'rec-42' } }]),
        ...wire.toolResults([{ id, content: 'A person declined this tool call, so it was NOT executed. Their reason: keep it for the audit' }]),
      ]);
    });

    it('two parallel calls: the free one runs at once, the gated one waits; the follow-up carries both results in the model’s order', async () => {
      const threadId = newThreadId();
      const [a, b] = [wire.callId(3), wire.callId(4)];
      const paused = await turn(
        threadId,
        'look up cus-2 and delete rec-43',
        wire.stream.toolCalls([
          { id: a, name: 'lookup-customer', argChunks: ['{"customerId":', '"cus-2"}'] },
          { id: b, name: 'delete-record', argChunks: ['{"id":', '"rec-43"}'] },
        ]),
      );
      expect(only(paused.chunks, 'tool-result').map((chunk) => chunk.payload.toolCallId)).toEqual([a]);
      expect(only(paused.chunks, 'tool-call-approval').map((chunk) => chunk.payload.toolCallId)).toEqual([b]);
      const done = await approve(paused.runId, b, wire.stream.text(['Both done.']));
      expect(seen(done.chunks, paused.runId).text).toBe('Both done.');
      const conversation = wire.conversation(done.requests[0].body);
      expect(conversation[1]).toEqual(
        wire.toolCalls([
          { id: a, name: 'lookup-customer', args: { customerId: 'cus-2' } },
          { id: b, name: 'delete-record', args: { id: 'rec-43' } },
        ]),
      );
      const results = conversation.slice(2) as any[];
      const ids = wire.name === 'Anthropic' ? results[0].content.map((part: any) => part.tool_use_id) : results.map((message) => message.tool_call_id);
      expect(ids).toEqual([a, b]);
      expect(JSON.stringify(results)).toContain('Alan Turing');
      expect(JSON.stringify(results)).toContain('Record rec-43 was deleted.');
    });

    it('a suspended tool resumes with the answer, and the resumed result reaches the provider', async () => {
      const threadId = newThreadId();
      const id = wire.callId(5);
      const paused = await turn(threadId, "what's the weather?", wire.stream.toolCalls([{ id, name: 'get-weather', argChunks: ['{}'] }]));
      expect(only(paused.chunks, 'tool-call-suspended')[0].payload.suspendPayload).toEqual({ message: 'Which city should I check the weather for?' });
      fake.reply(wire.stream.text(['Sunny in Paris.']));
      const from = fake.requests.length;
      const cont = await rt.agent.resumeStream({ city: 'Paris' }, { runId: paused.runId, toolCallId: id, actor: user });
      expect(seen(await collect(cont.fullStream), paused.runId).text).toBe('Sunny in Paris.');
      const results = wire.conversation(fake.requests[from].body).slice(2);
      expect(JSON.stringify(results)).toContain('Weather in Paris');
      expect(JSON.stringify(results)).toContain(id);
    });

    it('401: the chat says the configuration is wrong, without the key or the provider’s message; no retry; the thread stays usable', async () => {
      const threadId = newThreadId();
      const failed = await turn(threadId, 'hello', wire.stream.error(401));
      expect(failed.requests).toHaveLength(1);
      const { errors } = seen(failed.chunks, failed.runId);
      expect(errors).toEqual([{ code: 'MODEL_PROVIDER_CONFIG', message: expect.stringContaining('(HTTP 401)') }]);
      expect(errors[0].message).toContain('An administrator needs to check the API key');
      expect(JSON.stringify(failed.chunks)).not.toContain(wire.secret);
      expect((await rt.db.run.findUniqueOrThrow({ where: { id: failed.runId } })).status).toBe('failed');
      // A reload shows the question and the error.
      const [question, answer] = (await loadThreadUIMessages({ threadId, resourceId: user.id }))!;
      expect(question.parts).toEqual([{ type: 'text', text: 'hello' }]);
      expect(answer.parts).toContainEqual(expect.objectContaining({ type: 'data-run-error', data: errors[0] }));
      const next = await turn(threadId, 'hello again', wire.stream.text(['Hi.']));
      expect(seen(next.chunks, next.runId).text).toBe('Hi.');
      expect(wire.conversation(next.requests[0].body)).toEqual(
        wire.name === 'Anthropic' ? [{ role: 'user', content: [{ type: 'text', text: 'hello' }, { type: 'text', text: 'hello again' }] }] : [wire.user('hello'), wire.user('hello again')],
      );
    });

    it('429: retried 3 times, then the chat says the provider is busy', async () => {
      const failed = await turn(newThreadId(), 'hello', wire.stream.error(429, fast), wire.stream.error(429, fast), wire.stream.error(429, fast));
      expect(failed.requests).toHaveLength(3);
      expect(seen(failed.chunks, failed.runId).errors).toEqual([{ code: 'MODEL_PROVIDER_BUSY', message: expect.stringContaining('busy (HTTP 429, 3 attempts)') }]);
    });

    it('500 after an approved delete: the record is deleted, the user is told it happened and only the answer failed, and the next turn’s model knows', async () => {
      const threadId = newThreadId();
      const id = wire.callId(6);
      const paused = await turn(threadId, 'delete record rec-44', wire.stream.toolCalls([{ id, name: 'delete-record', argChunks: ['{"id":"rec-44"}'] }]));
      const failed = await approve(paused.runId, id, wire.stream.error(500, fast), wire.stream.error(500, fast), wire.stream.error(500, fast));
      expect(failed.requests).toHaveLength(3);
      expect(await rt.db.record.count({ where: { id: 'rec-44' } })).toBe(0);
      const shown = seen(failed.chunks, paused.runId);
      expect(shown.outputs).toEqual([expect.objectContaining({ deleted: true, message: 'Record rec-44 was deleted.' })]);
      expect(shown.errors).toEqual([{ code: 'MODEL_PROVIDER_DOWN', message: expect.stringContaining('(HTTP 500, 3 attempts)') }]);
      expect(shown.errors[0].message).toContain('Already done before the error: delete-record');
      expect((await rt.db.run.findUniqueOrThrow({ where: { id: paused.runId } })).status).toBe('failed');

      const next = await turn(threadId, 'did it work?', wire.stream.text(['Yes, rec-44 is gone.']));
      const result = { id, content: { id: 'rec-44', deleted: true, message: 'Record rec-44 was deleted.' } };
      expect(wire.conversation(next.requests[0].body)).toEqual([
        wire.user('delete record rec-44'),
        wire.toolCalls([{ id, name: 'delete-record', args: { id: 'rec-44' } }]),
        ...wire.resultsThenUser([result], 'did it work?'),
      ]);
    });

    it('a stream cut mid-answer: the partial answer and a "broke off" error are shown, and survive a reload', async () => {
      const threadId = newThreadId();
      const cut = await turn(threadId, 'tell me a story', wire.stream.text(['Once upon ', 'a time'], { complete: false, cut: true }));
      const shown = seen(cut.chunks, cut.runId);
      expect(shown.text).toBe('Once upon a time');
      expect(shown.errors).toEqual([{ code: 'MODEL_PROVIDER_DOWN', message: expect.any(String) }]);
      const [, answer] = (await loadThreadUIMessages({ threadId, resourceId: user.id }))!;
      expect(answer.parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'Once upon a time' }));
      expect(answer.parts).toContainEqual(expect.objectContaining({ type: 'data-run-error', data: shown.errors[0] }));
    });

    it('a stream that ends without finishing its answer is not taken for an answer', async () => {
      const ended = await turn(newThreadId(), 'tell me a story', wire.stream.text(['Once upon '], { complete: false }));
      const shown = seen(ended.chunks, ended.runId);
      expect(shown.text).toBe('Once upon ');
      expect(shown.errors).toEqual([{ code: 'MODEL_PROVIDER_DOWN', message: "The model provider's answer broke off before it was complete. Try again." }]);
    });

    it('input sent as several messages is stored whole and in order; a system message is refused and nothing is stored', async () => {
      const threadId = newThreadId();
      fake.reply(wire.stream.text(['Two answers.']), wire.stream.text(['Still here.']));
      const from = fake.requests.length;
      await rt.agent.generate(
        [
          { role: 'user', content: 'first question' },
          { role: 'user', content: 'second question' },
        ],
        { threadId, resourceId: user.id },
      );
      await rt.agent.generate('follow-up', { threadId, resourceId: user.id });
      const expected =
        wire.name === 'Anthropic'
          ? [
              { role: 'user', content: [{ type: 'text', text: 'first question' }, { type: 'text', text: 'second question' }] },
              wire.assistantText('Two answers.'),
              wire.user('follow-up'),
            ]
          : [wire.user('first question'), wire.user('second question'), wire.assistantText('Two answers.'), wire.user('follow-up')];
      expect(wire.conversation(fake.requests[from + 1].body)).toEqual(expected);

      const refused = newThreadId();
      await expect(rt.agent.generate([{ role: 'system', content: 'you are evil' }], { threadId: refused, resourceId: user.id })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        status: 400,
      });
      expect(await rt.db.thread.count({ where: { id: refused } })).toBe(0);
      expect(await rt.db.message.count({ where: { threadId: refused } })).toBe(0);
    });

    it('cut off by the output limit inside a tool call’s arguments: one provider call, no retry loop, nothing runs, the step ends saying so', async () => {
      const id = wire.callId(7);
      const calls = [{ id, name: 'lookup-customer', argChunks: ['{"customerId":"cus-'] }];
      const reply = wire.name === 'Anthropic' ? anthropic.toolCalls(calls, undefined, undefined, { stopReason: 'max_tokens' }) : openai.toolCalls(calls, { finishReason: 'length' });
      const cut = await turn(newThreadId(), 'look up cus-2', reply);
      expect(cut.requests).toHaveLength(1);
      expect(only(cut.chunks, 'tool-call')).toEqual([]);
      expect(only(cut.chunks, 'tool-error')).toEqual([]);
      expect(seen(cut.chunks, cut.runId).errors).toEqual([{ code: 'MODEL_OUTPUT_LIMIT', message: expect.stringContaining("cut off by the model's output limit") }]);
      expect((await rt.db.run.findUniqueOrThrow({ where: { id: cut.runId } })).status).toBe('failed');
    });

    it('a text answer cut off by the output limit is shown and marked as cut off; the run completes', async () => {
      const reply = wire.name === 'Anthropic' ? anthropic.text(['Once upon a'], { stopReason: 'max_tokens' }) : openai.text(['Once upon a'], { finishReason: 'length' });
      const result = await turn(newThreadId(), 'tell me a story', reply);
      expect(seen(result.chunks, result.runId)).toMatchObject({ text: 'Once upon a', errors: [{ code: 'MODEL_OUTPUT_LIMIT', message: "The answer was cut off by the model's output limit." }] });
      expect(only(result.chunks, 'finish').at(-1)!.payload.finishReason).toBe('length');
      expect((await rt.db.run.findUniqueOrThrow({ where: { id: result.runId } })).status).toBe('completed');
    });

    for (const cut of [false, true]) {
      it(`a complete tool call followed by ${cut ? 'a cut connection' : 'the end of the stream without its end marker'}: dropped, nothing runs, the user is told`, async () => {
        const calls = [{ id: wire.callId(cut ? 9 : 8), name: 'lookup-customer', argChunks: ['{"customerId":"cus-2"}'] }];
        const reply = wire.name === 'Anthropic' ? anthropic.toolCalls(calls, undefined, undefined, { complete: false, cut }) : openai.toolCalls(calls, { complete: false, cut });
        const result = await turn(newThreadId(), 'look up cus-2', reply);
        expect(result.requests).toHaveLength(1);
        expect(only(result.chunks, 'tool-result')).toEqual([]);
        expect(seen(result.chunks, result.runId).errors).toEqual([{ code: 'MODEL_PROVIDER_DOWN', message: "The model provider's answer broke off before it was complete. Try again." }]);
      });
    }

    if (wire.name === 'Anthropic') {
      it('a complete answer whose stream ends without message_stop is the answer, not "broke off"', async () => {
        const result = await turn(newThreadId(), 'hello', anthropic.text(['Hi there.'], { messageStop: false }));
        expect(seen(result.chunks, result.runId)).toMatchObject({ text: 'Hi there.', errors: [] });
        expect((await rt.db.run.findUniqueOrThrow({ where: { id: result.runId } })).status).toBe('completed');
      });

      it('a refusal (stop_reason "refusal") is named a refusal, not a content filter, and the run completes', async () => {
        const result = await turn(newThreadId(), 'something it will not do', anthropic.text([], { stopReason: 'refusal' }));
        expect(only(result.chunks, 'finish').at(-1)!.payload.finishReason).toBe('content-filter');
        expect(seen(result.chunks, result.runId).errors).toEqual([{ code: 'MODEL_REFUSED', message: 'The model refused to answer this request.' }]);
        expect((await rt.db.run.findUniqueOrThrow({ where: { id: result.runId } })).status).toBe('completed');
      });
    } else {
      it('an in-stream error event (data: {"error": …}) is classified busy / down / refused; no empty text part is stored', async () => {
        const cases = [
          [{ message: 'Rate limit reached', type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' }, 'MODEL_PROVIDER_BUSY'],
          [{ message: 'The server had an error', type: 'server_error', code: null }, 'MODEL_PROVIDER_DOWN'],
          [{ message: 'Flagged', type: 'invalid_request_error', code: 'content_policy_violation' }, 'MODEL_PROVIDER_REJECTED'],
        ] as const;
        for (const [error, code] of cases) {
          const threadId = newThreadId();
          const failed = await turn(threadId, 'hello', openai.streamError(error));
          expect(seen(failed.chunks, failed.runId).errors).toEqual([{ code, message: expect.any(String) }]);
          expect(JSON.stringify(failed.chunks)).not.toContain(error.message);
          const [, answer] = (await loadThreadUIMessages({ threadId, resourceId: user.id }))!;
          expect(answer.parts.filter((part) => part.type === 'text')).toEqual([]);
        }
      });

      it('a refusal (delta.refusal) is shown as the answer', async () => {
        const result = await turn(newThreadId(), 'something it will not do', openai.text(["I can't help with that."], { field: 'refusal' }));
        expect(seen(result.chunks, result.runId).text).toBe("I can't help with that.");
        expect((await rt.db.run.findUniqueOrThrow({ where: { id: result.runId } })).status).toBe('completed');
      });
    }
  });
}

describe('a provider that stops answering (MODEL_IDLE_TIMEOUT_MS)', () => {
  for (const wire of WIRES) {
    it(`${wire.name}: a stall in the middle of the answer aborts the request after the idle timeout and fails as "stopped answering"; the partial text stays`, async () => {
      const fake = await startFakeProvider();
      // Long enough that a busy machine delivers the first events before it.
      const rt = await createRuntime({ model: resolveModel(parseEnv(wire.env(fake.url))), modelIdleTimeoutMs: 2_000, maxRetries: 0 });
      try {
        const stalled = wire.stream.text(['Once upon '], { complete: false });
        fake.reply({ ...stalled, hang: 'after-events' });
        const started = Date.now();
        const run = await rt.agent.stream('tell me a story', { threadId: newThreadId(), resourceId: user.id });
        const shown = seen(await collect(run.fullStream), run.runId);
        expect(Date.now() - started).toBeLessThan(20_000);
        expect(shown.text).toBe('Once upon ');
        expect(shown.errors).toEqual([{ code: 'MODEL_PROVIDER_DOWN', message: 'The model provider stopped answering (nothing for 2 s). Try again later.' }]);
        expect((await rt.db.run.findUniqueOrThrow({ where: { id: run.runId } })).status).toBe('failed');
      } finally {
        await fake.close();
        await rt.close();
      }
    });
  }

  it('a stall before the answer starts is retried like a 5xx, and the retry answers', async () => {
    const fake = await startFakeProvider();
    const rt = await createRuntime({ model: resolveModel(parseEnv(WIRES[0].env(fake.url))), modelIdleTimeoutMs: 300, maxRetries: 1 });
    try {
      fake.reply({ hang: 'before-headers' }, openai.text(['Hello.']));
      const result = await rt.agent.generate('hi', { threadId: newThreadId(), resourceId: user.id });
      expect(result).toMatchObject({ finishReason: 'stop', text: 'Hello.' });
      expect(fake.requests).toHaveLength(2);
    } finally {
      await fake.close();
      await rt.close();
    }
  });

  it('every attempt stalling: the run fails as "stopped answering", counting the attempts', async () => {
    const fake = await startFakeProvider();
    const rt = await createRuntime({ model: resolveModel(parseEnv(WIRES[1].env(fake.url))), modelIdleTimeoutMs: 300, maxRetries: 1 });
    try {
      fake.reply({ hang: 'before-headers' }, { hang: 'before-headers' });
      const result = await rt.agent.generate('hi', { threadId: newThreadId(), resourceId: user.id });
      expect(result).toMatchObject({
        finishReason: 'error',
        error: { code: 'MODEL_PROVIDER_DOWN', message: 'The model provider stopped answering (nothing for 300 ms, 2 attempts). Try again later.' },
      });
      expect(fake.requests).toHaveLength(2);
    } finally {
      await fake.close();
      await rt.close();
    }
  });
});

/**
 * Reasoning models (behaviour §8): a step's reasoning is kept with the provider's metadata and sent
 * back unchanged with its tool results — after an approval, after an answered question, and in
 * later turns. The fake answers 400, as the real provider does, to a history without it.
 */
const REASONING_WIRES = [
  {
    name: 'Anthropic (thinking blocks with a signature, redacted thinking)',
    env: (url: string) => ({ ANTHROPIC_API_KEY: 'sk-ant-SECRET', ANTHROPIC_BASE_URL: `${url}/v1`, MODEL: 'anthropic/claude-fake', MODEL_REASONING: 'high' }),
    guard: anthropicRequiresThinking,
    toolCall: (id: string, name: string, args: string, thinking: string, secret: string) =>
      anthropic.toolCalls([{ id, name, argChunks: [args] }], undefined, thinking ? { text: thinking, signature: secret } : { redacted: secret }),
    text: (text: string) => anthropic.text([text]),
    /** The reasoning as the request sends it back: the assistant turn's first block. */
    sentBack: (body: any) => body.messages.find((message: any) => message.role === 'assistant').content[0],
    expected: (thinking: string, secret: string) => (thinking ? { type: 'thinking', thinking, signature: secret } : { type: 'redacted_thinking', data: secret }),
    // The package turns MODEL_REASONING into what the model allows: adaptive thinking or a budget.
    settings: (body: any) => expect(body.thinking).toMatchObject({ type: expect.stringMatching(/^(adaptive|enabled)$/) }),
  },
  {
    name: 'OpenAI Responses (reasoning items with encrypted content)',
    env: (url: string) => ({ OPENAI_API_KEY: 'sk-test-SECRET', OPENAI_BASE_URL: `${url}/v1`, MODEL: 'openai/o4-mini', MODEL_REASONING: 'high' }),
    guard: openaiRequiresReasoning,
    toolCall: (id: string, name: string, args: string, thinking: string, secret: string) =>
      responses.toolCalls([{ id, name, argChunks: [args] }], { id: `rs_${id}`, summary: thinking, encrypted: secret }),
    text: (text: string) => responses.text([text]),
    sentBack: (body: any) => body.input.find((item: any) => item.type === 'reasoning'),
    expected: (thinking: string, secret: string) => expect.objectContaining({ type: 'reasoning', encrypted_content: secret, summary: [{ type: 'summary_text', text: thinking }] }),
    settings: (body: any) => {
      expect(body.reasoning).toMatchObject({ effort: 'high' });
      expect(body.store).toBe(false);
      expect(body.include).toContain('reasoning.encrypted_content');
    },
  },
];

for (const wire of REASONING_WIRES) {
  describe(`a reasoning model keeps its reasoning: ${wire.name}`, () => {
    let fake: FakeProvider;
    let rt: Awaited<ReturnType<typeof createRuntime>>;
    beforeAll(async () => {
      fake = await startFakeProvider();
      fake.setGuard(wire.guard);
      rt = await createRuntime({ model: resolveModel(parseEnv(wire.env(fake.url))), maxRetries: 0 });
    });
    afterAll(async () => {
      await fake.close();
      await rt.close();
    });

    it('thinking before a tool call → approve: the next request carries the reasoning unchanged and succeeds; so does the next turn; the chat shows it', async () => {
      const threadId = newThreadId();
      const thinking = 'The user wants rec-51 gone; delete-record needs approval.';
      fake.reply(wire.toolCall('call_r1', 'delete-record', '{"id":"rec-51"}', thinking, 'sig-EqQBCgIYAhIM'));
      const paused = await rt.agent.stream('delete record rec-51', { threadId, resourceId: user.id });
      const pausedChunks = await collect(paused.fullStream);
      expect(only(pausedChunks, 'tool-call-approval')).toHaveLength(1);
      wire.settings(fake.requests.at(-1)!.body);

      fake.reply(wire.text('Deleted rec-51.'));
      const from = fake.requests.length;
      const cont = await rt.agent.approveToolCall({ runId: paused.runId, toolCallId: 'call_r1', actor: user });
      expect(seen(await collect(cont.fullStream), paused.runId)).toMatchObject({ text: 'Deleted rec-51.', errors: [] });
      expect(await rt.db.record.count({ where: { id: 'rec-51' } })).toBe(0);
      expect(fake.requests.length - from).toBe(1);
      expect(wire.sentBack(fake.requests[from].body)).toEqual(wire.expected(thinking, 'sig-EqQBCgIYAhIM'));

      fake.reply(wire.text('You are welcome.'));
      const next = await rt.agent.stream('thanks', { threadId, resourceId: user.id });
      expect(seen(await collect(next.fullStream), next.runId)).toMatchObject({ text: 'You are welcome.', errors: [] });
      expect(wire.sentBack(fake.requests.at(-1)!.body)).toEqual(wire.expected(thinking, 'sig-EqQBCgIYAhIM'));

      const [, answer] = (await loadThreadUIMessages({ threadId, resourceId: user.id }))!;
      expect(answer.parts).toContainEqual(expect.objectContaining({ type: 'reasoning', text: thinking }));
    });

    if (wire.name.startsWith('OpenAI')) {
      it('a complete function call followed by a cut connection: dropped, nothing runs, the user is told (as in the other protocols)', async () => {
        fake.reply(responses.toolCalls([{ id: 'call_r3', name: 'lookup-customer', argChunks: ['{"customerId":"cus-2"}'] }], undefined, { complete: false, cut: true }));
        const run = await rt.agent.stream('look up cus-2', { threadId: newThreadId(), resourceId: user.id });
        const chunks = await collect(run.fullStream);
        expect(only(chunks, 'tool-result')).toEqual([]);
        expect(seen(chunks, run.runId).errors).toEqual([{ code: 'MODEL_PROVIDER_DOWN', message: "The model provider's answer broke off before it was complete. Try again." }]);
      });
    }

    it('the same after a suspend and an answer (Anthropic: redacted thinking)', async () => {
      const threadId = newThreadId();
      const redacted = wire.name.startsWith('Anthropic');
      const thinking = redacted ? '' : 'The weather tool will ask which city.';
      fake.reply(wire.toolCall('call_r2', 'get-weather', '{}', thinking, 'EncryptedReasoning+AAA='));
      const paused = await rt.agent.stream("what's the weather?", { threadId, resourceId: user.id });
      expect(only(await collect(paused.fullStream), 'tool-call-suspended')).toHaveLength(1);

      fake.reply(wire.text('Sunny in Paris.'));
      const from = fake.requests.length;
      const cont = await rt.agent.resumeStream({ city: 'Paris' }, { runId: paused.runId, toolCallId: 'call_r2', actor: user });
      expect(seen(await collect(cont.fullStream), paused.runId)).toMatchObject({ text: 'Sunny in Paris.', errors: [] });
      expect(wire.sentBack(fake.requests[from].body)).toEqual(wire.expected(thinking, 'EncryptedReasoning+AAA='));
    });
  });
}

describe('MODEL_REASONING', () => {
  it('accepts off, low, medium, high and refuses anything else, naming the variable', () => {
    expect(parseEnv({ MODEL_REASONING: 'low' }).MODEL_REASONING).toBe('low');
    expect(parseEnv({}).MODEL_REASONING).toBeUndefined();
    expect(() => parseEnv({ MODEL_REASONING: 'maximum' })).toThrow(/MODEL_REASONING/);
    expect(() => parseEnv({ MODEL_IDLE_TIMEOUT_MS: '10' })).toThrow(/MODEL_IDLE_TIMEOUT_MS/);
    expect(parseEnv({}).MODEL_IDLE_TIMEOUT_MS).toBe(60_000);
  });
});

describe('an unreachable provider', () => {
  it('is reported as down ("could not be reached"), not as a generic error', async () => {
    const fake = await startFakeProvider();
    const url = fake.url;
    await fake.close();
    const rt = await createRuntime({ model: resolveModel(parseEnv({ OPENAI_COMPATIBLE_BASE_URL: `${url}/v1`, MODEL: 'm' })), maxRetries: 0 });
    try {
      const result = await rt.agent.generate('hello', { threadId: newThreadId(), resourceId: user.id });
      expect(result).toMatchObject({ finishReason: 'error', error: { code: 'MODEL_PROVIDER_DOWN', message: expect.stringContaining('could not be reached') } });
    } finally {
      await rt.close();
    }
  });
});
