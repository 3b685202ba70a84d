import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentStore } from '../../lib/agent/store';
import { createTool } from '../../lib/agent/tool';
import { collect, createRuntime, databaseUrl, newThreadId, only } from '../support/harness';
import { afterToolResults, callParts, streamModel, textParts } from '../support/stream-model';

const user = { id: 'user-ada', role: 'user' as const };
const closers: (() => Promise<void>)[] = [];
let loadThreadUIMessages: typeof import('../../lib/chat/threads').loadThreadUIMessages;

beforeAll(async () => {
  // The thread loader behind GET /api/chat/{id} uses the process-wide client on DATABASE_URL.
  process.env.DATABASE_URL = databaseUrl();
  ({ loadThreadUIMessages } = await import('../../lib/chat/threads'));
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

async function runtime(options: Parameters<typeof createRuntime>[0] = {}) {
  const rt = await createRuntime(options);
  closers.push(rt.close);
  return rt;
}

/** What a reload shows: the thread as GET /api/chat/{id} returns it. */
async function reload(threadId: string) {
  const messages = await loadThreadUIMessages({ threadId, resourceId: user.id });
  return messages ?? [];
}

describe("the issue's inputs: a call with unusable args fails as that call, the run answers, the turn survives a reload", () => {
  for (const [line, tool, codePoint] of [
    ['/tool delete-record {"id":"rec-\\u0000"}', 'delete-record', 'U+0000'],
    ['/tool delete-record {"id":"rec-\\ud83d"}', 'delete-record', 'U+D83D'],
    ['/tool lookup-customer {"customerId":"cus-\\udc00x"}', 'lookup-customer', 'U+DC00'],
  ] as const) {
    it(line, async () => {
      const rt = await runtime();
      const threadId = newThreadId();
      const started = await rt.agent.stream(line, { threadId, resourceId: user.id });
      const chunks = await collect(started.fullStream);

      expect(only(chunks, 'finish').at(-1)!.payload.finishReason).toBe('stop');
      expect(only(chunks, 'error')).toHaveLength(0);
      const [toolError] = only(chunks, 'tool-error');
      expect(toolError.payload).toMatchObject({ toolName: tool, error: expect.stringContaining(codePoint) });
      // The card shows what the model sent, as a JSON escape, not the raw character.
      expect(only(chunks, 'tool-call')[0].payload.args).toContain(`\\u${codePoint.slice(2).toLowerCase()}`);
      expect(only(chunks, 'tool-call-approval')).toHaveLength(0);
      const text = only(chunks, 'text-delta').map((chunk) => chunk.payload.text).join('');
      expect(text).toContain(`${tool} failed: The arguments contain ${codePoint}`);

      expect((await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('completed');
      expect(await rt.db.pendingToolCall.count({ where: { runId: started.runId } })).toBe(0);
      expect(await rt.db.record.count({ where: { id: { startsWith: 'rec-' } } })).toBeGreaterThan(0);

      const [userMessage, assistant] = await reload(threadId);
      expect(userMessage.parts).toEqual([{ type: 'text', text: line }]);
      expect(assistant.role).toBe('assistant');
      const toolPart = assistant.parts.find((part) => part.type === `tool-${tool}`) as { state: string; errorText: string } | undefined;
      expect(toolPart).toMatchObject({ state: 'output-error', errorText: expect.stringContaining(codePoint) });
      expect(assistant.parts.some((part) => part.type === 'text' && part.text.includes(`${tool} failed`))).toBe(true);

      // The next turn's history replays: it holds the refused call (with `{}` args) and its error.
      const next = await rt.agent.generate('look up customer cus-1', { threadId, resourceId: user.id });
      expect(next.finishReason).toBe('stop');
      expect(next.text).toContain('Grace Hopper');
      const stored = await rt.db.message.findMany({ where: { threadId }, orderBy: { seq: 'asc' } });
      expect(stored.map((row) => row.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
      expect(stored[1].content).toEqual([expect.objectContaining({ type: 'tool-call', toolName: tool, input: {} })]);
    });
  }
});

describe('every kind of malformed model output', () => {
  it('text deltas with NUL, lone surrogates and a pair split across deltas are stored repaired, and the pair stays whole', async () => {
    const model = streamModel((prompt) => (afterToolResults(prompt) ? textParts('done') : textParts('a\u0000b ', 'half \ud83d', '\ude00 whole, lone \udc00', ' end \ud83d')));
    const rt = await runtime({ model });
    const threadId = newThreadId();
    const result = await rt.agent.generate('hi', { threadId, resourceId: user.id });
    const expected = 'a\uFFFDb half 😀 whole, lone \uFFFD end \uFFFD';
    expect(result).toMatchObject({ finishReason: 'stop', text: expected });
    const [, assistant] = await reload(threadId);
    expect(assistant.parts).toContainEqual(expect.objectContaining({ type: 'text', text: expected }));
    const stored = await rt.db.message.findMany({ where: { threadId, role: 'assistant' } });
    expect(stored[0].content).toEqual([{ type: 'text', text: expected }]);
  });

  it('invalid JSON, huge, deeply nested args, an unknown unsafe tool name and unsafe or repeated ids each fail as their call; the others run', async () => {
    const deep = '{"a":'.repeat(40) + '1' + '}'.repeat(40);
    const model = streamModel((prompt) =>
      afterToolResults(prompt)
        ? textParts('answered')
        : callParts(
            { id: 'c1', name: 'lookup-customer', input: '{"customerId": "cus-1"' },
            { id: 'c2', name: 'lookup-customer', input: JSON.stringify({ customerId: 'x'.repeat(20_000) }) },
            { id: 'c3', name: 'lookup-customer', input: deep },
            { id: 'c4', name: 'no such\u0000tool', input: '{}' },
            { id: 'c4', name: 'lookup-customer', input: '{"customerId":"cus-2"}' },
            { id: 'bad id\u0000', name: 'lookup-customer', input: '{"customerId":"cus-3"}' },
          ),
    );
    const rt = await runtime({ model });
    const threadId = newThreadId();
    const result = await rt.agent.generate('go', { threadId, resourceId: user.id });
    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('answered');

    const sent = model.prompts[1].at(-1)!;
    expect(sent.role).toBe('tool');
    const outputs = sent.role === 'tool' ? sent.content.map((part) => (part.type === 'tool-result' ? part.output : null)) : [];
    expect(outputs[0]).toMatchObject({ type: 'error-text', value: expect.stringContaining('not valid JSON') });
    expect(outputs[1]).toMatchObject({ type: 'error-text', value: expect.stringContaining('larger than 8192 bytes') });
    expect(outputs[2]).toMatchObject({ type: 'error-text', value: expect.stringContaining('nested more than 16 levels') });
    expect(outputs[3]).toMatchObject({ type: 'error-text', value: expect.stringContaining('no tool named "no such\uFFFDtool"') });
    expect(outputs[4]).toMatchObject({ type: 'json', value: expect.objectContaining({ message: expect.stringContaining('Alan Turing') }) });
    expect(outputs[5]).toMatchObject({ type: 'json', value: expect.objectContaining({ message: expect.stringContaining('Katherine Johnson') }) });

    // Ids are unique and safe; the replayed assistant message matches the results one to one.
    const assistant = model.prompts[1].at(-2)!;
    const ids = assistant.role === 'assistant' ? assistant.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])) : [];
    expect(new Set(ids).size).toBe(6);
    expect(ids.slice(0, 4)).toEqual(['c1', 'c2', 'c3', 'c4']);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(sent.role === 'tool' && sent.content.map((part) => part.type === 'tool-result' && part.toolCallId)).toEqual(ids);
    expect(assistant.role === 'assistant' && assistant.content.map((part) => part.type === 'tool-call' && part.input)).toEqual([
      {},
      {},
      {},
      {},
      { customerId: 'cus-2' },
      { customerId: 'cus-3' },
    ]);
    expect((await reload(threadId))[1].parts.filter((part) => part.type.startsWith('tool-'))).toHaveLength(6);
  });

  it("a tool's unstorable result is repaired (strings) or becomes that call's error (a cycle), and the run answers", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const tools = [
      createTool({ id: 'dirty', description: 'returns NUL and a lone surrogate', inputSchema: z.object({}), execute: () => ({ text: 'x\u0000y\ud800', big: 12n }) }),
      createTool({ id: 'loop', description: 'returns a cycle', inputSchema: z.object({}), execute: () => cyclic }),
      createTool({
        id: 'asks',
        description: 'suspends with a dirty payload',
        inputSchema: z.object({}),
        resumeSchema: z.object({ ok: z.boolean() }),
        execute: (_input, { agent }) => (agent.resumeData ? { resumed: true } : agent.suspend({ question: 'why\u0000?' })),
      }),
    ];
    const rt = await runtime({ tools });
    const threadId = newThreadId();
    const paused = await rt.agent.generate('/tool dirty {}\n/tool loop {}\n/tool asks {}', { threadId, resourceId: user.id });
    expect(paused.finishReason).toBe('suspended');
    expect(paused.toolResults[0].result).toEqual({ text: 'x\uFFFDy\uFFFD', big: '12' });
    expect(paused.suspendedToolCalls[0].suspendPayload).toEqual({ question: 'why\uFFFD?' });
    const done = await rt.agent.resumeGenerate({ ok: true }, { runId: paused.runId, actor: user });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toContain('loop failed: The tool\'s result cannot be stored: it refers to itself.');
  });
});

describe('the same bar for data that reaches storage by other ways', () => {
  it("a reviewer's edited args are refused like a model's (a bidi override), and unstorable resume data is refused; both calls stay pending", async () => {
    const rt = await runtime();
    const paused = await rt.agent.generate('/tool send-email {"to":"a@example.com","subject":"Hi","body":"ok"}', { threadId: newThreadId(), resourceId: user.id });
    const reviewer = { id: 'reviewer-rita', role: 'reviewer' as const };
    await expect(
      rt.agent.approveToolCall({ runId: paused.runId, actor: reviewer, args: { to: 'a@example.com', subject: 'Hi', body: 'pay \u202Eevil' } }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGS', message: expect.stringContaining('U+202E (a bidirectional text control) at $.body') });
    expect((await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: paused.runId } })).status).toBe('pending');

    const asked = await rt.agent.generate("what's the weather?", { threadId: newThreadId(), resourceId: user.id });
    await expect(rt.agent.resumeStream({ city: 'Par\u0000is' }, { runId: asked.runId, actor: user })).rejects.toMatchObject({ code: 'INVALID_RESUME_DATA' });
    // An answer meets the edited args' bar too: no bidi override, no terminal escape.
    await expect(rt.agent.resumeStream({ city: '\u202Eevil' }, { runId: asked.runId, actor: user })).rejects.toMatchObject({
      code: 'INVALID_RESUME_DATA',
      message: expect.stringContaining('U+202E (a bidirectional text control) at $.city'),
    });
    await expect(rt.agent.resumeStream({ city: 'Par\u0007is\u001b[31m' }, { runId: asked.runId, actor: user })).rejects.toMatchObject({
      code: 'INVALID_RESUME_DATA',
      message: expect.stringContaining('at $.city'),
    });
    expect((await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: asked.runId } })).status).toBe('pending');
  });

  it("auto-resume: a model's extraction that cannot be stored answers nothing; the message starts a new turn and the question stays open", async () => {
    const model = streamModel(
      (prompt) => (afterToolResults(prompt) ? textParts('ok') : prompt.length > 2 ? textParts('new turn') : callParts({ id: 'w1', name: 'get-weather', input: '{}' })),
      { generateText: () => '{"city":"Par\\u0000is"}' },
    );
    const rt = await runtime({ model, defaultOptions: { autoResumeSuspendedTools: true } });
    const threadId = newThreadId();
    const asked = await rt.agent.generate("what's the weather?", { threadId, resourceId: user.id });
    expect(asked.finishReason).toBe('suspended');
    const next = await rt.agent.generate('Paris', { threadId, resourceId: user.id });
    expect(next.runId).not.toBe(asked.runId);
    expect(next.text).toBe('new turn');
    expect((await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: asked.runId } })).status).toBe('pending');
  });
});

describe('a write that fails never takes published events with it', () => {
  it('when finishing the run fails, the run is failed and the reload still shows the whole turn and the error', async () => {
    const base = await runtime();
    let failures = 0;
    // The real store, except that finishing a completed run fails once (as a lost connection would).
    const store: AgentStore = Object.assign(Object.create(Object.getPrototypeOf(base.store)), base.store, {
      finishRun: async (input: Parameters<AgentStore['finishRun']>[0]) => {
        if (input.status === 'completed' && failures++ === 0) throw new Error('connection terminated unexpectedly');
        return base.store.finishRun(input);
      },
    });
    const rt = await runtime({ store });
    const threadId = newThreadId();
    const started = await rt.agent.stream('look up customer cus-1', { threadId, resourceId: user.id });
    const chunks = await collect(started.fullStream);
    expect(only(chunks, 'error')[0].payload).toMatchObject({ code: 'RUN_FAILED' });
    expect((await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('failed');

    const logged = (await rt.db.runEvent.findMany({ where: { runId: started.runId }, orderBy: { id: 'asc' } })).map((row) => (row.chunk as { type: string }).type);
    expect(logged).toEqual(expect.arrayContaining(['start', 'tool-call', 'tool-result', 'text-start', 'text-delta', 'text-end', 'error', 'finish']));
    expect(logged.indexOf('start')).toBe(0);
    const [, assistant] = await reload(threadId);
    expect(assistant.parts.map((part) => part.type)).toEqual(expect.arrayContaining(['tool-lookup-customer', 'text', 'data-run-error']));
    // The executed call and its result are in memory, though the run failed.
    const stored = await rt.db.message.findMany({ where: { threadId }, orderBy: { seq: 'asc' } });
    expect(stored.map((row) => row.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('an event batch whose write fails is written with the next one, in order', async () => {
    const base = await runtime();
    let failed = false;
    const store: AgentStore = Object.assign(Object.create(Object.getPrototypeOf(base.store)), base.store, {
      appendEvents: async (input: Parameters<AgentStore['appendEvents']>[0]) => {
        if (!failed) {
          failed = true;
          throw new Error('deadlock detected');
        }
        return base.store.appendEvents(input);
      },
    });
    const model = streamModel(() => textParts('one ', 'two ', 'three'));
    // A slow stream, so the first timed batch is written (and fails) before the run ends.
    const slow = Object.assign(Object.create(model), {
      doStream: async (options: Parameters<typeof model.doStream>[0]) => {
        const result = await model.doStream(options);
        const reader = result.stream.getReader();
        return {
          ...result,
          stream: new ReadableStream({
            async pull(controller) {
              const { value, done } = await reader.read();
              if (done) return controller.close();
              await new Promise((resolve) => setTimeout(resolve, 40));
              controller.enqueue(value);
            },
          }),
        };
      },
    });
    const rt = await runtime({ store, model: slow });
    const threadId = newThreadId();
    const result = await rt.agent.generate('hi', { threadId, resourceId: user.id });
    expect(failed).toBe(true);
    expect(result.text).toBe('one two three');
    const logged = (await rt.db.runEvent.findMany({ where: { runId: result.runId }, orderBy: { id: 'asc' } })).map((row) => row.chunk as { type: string; payload: { text?: string } });
    expect(logged[0].type).toBe('start');
    expect(logged.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.payload.text).join('')).toBe('one two three');
  });
});

describe('property: no string a model can emit aborts a run (real runtime, real PostgreSQL)', () => {
  const codeUnit = fc
    .oneof(
      fc.integer({ min: 0, max: 0x1f }),
      fc.integer({ min: 0xd800, max: 0xdfff }),
      fc.constantFrom(0x7f, 0x85, 0x202e, 0x2066),
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.integer({ min: 0, max: 0xffff }),
    )
    .map((unit) => String.fromCharCode(unit));
  const anyString = fc.string({ unit: codeUnit, maxLength: 24 });
  const echoes: unknown[] = [];
  const echo = createTool({
    id: 'echo',
    description: 'returns its input',
    inputSchema: z.object({ value: z.string() }),
    execute: ({ value }) => {
      echoes.push(value);
      return { value };
    },
  });

  it('text deltas, tool args and keys made of arbitrary UTF-16 code units: the run completes, and runs the tool only with exactly what was sent', async () => {
    let current: { deltas: string[]; args: string; key: string } = { deltas: [], args: '', key: '' };
    const model = streamModel((prompt) =>
      afterToolResults(prompt)
        ? textParts(...current.deltas)
        : callParts(
            { id: 'p1', name: 'echo', input: JSON.stringify({ value: current.args }) },
            { id: 'p2', name: 'echo', input: JSON.stringify({ value: 'k', [current.key]: 1 }) },
          ),
    );
    const rt = await runtime({ model, tools: [echo] });
    await fc.assert(
      fc.asyncProperty(fc.array(anyString, { minLength: 1, maxLength: 4 }), anyString, anyString, async (deltas, args, key) => {
        current = { deltas, args, key };
        echoes.length = 0;
        const threadId = newThreadId();
        const result = await rt.agent.generate('go', { threadId, resourceId: user.id });
        expect(result.finishReason).toBe('stop');
        const run = await rt.db.run.findUniqueOrThrow({ where: { id: result.runId } });
        expect(run.status).toBe('completed');
        const storableArgs = !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(args);
        // Args are never altered: the tool ran with exactly what the model sent, or not at all.
        expect(echoes.filter((value) => value !== 'k')).toEqual(storableArgs ? [args] : []);
        const repaired = deltas.join('').replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\uFFFD');
        expect(result.text).toBe(repaired);
        // And the turn reloads from PostgreSQL with that text.
        const [, assistant] = await reload(threadId);
        const shown = assistant.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text).join('');
        expect(shown).toBe(repaired);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe('the scripted model with arguments that are not JSON (issue 30, item 9 Wording)', () => {
  it('`/tool lookup-customer {not json` is refused as arguments that are not valid JSON, not as a schema error about made-up fields', async () => {
    const rt = await runtime();
    const chunks = await collect((await rt.agent.stream('/tool lookup-customer {not json', { threadId: newThreadId(), resourceId: user.id })).fullStream);
    const [failed] = only(chunks, 'tool-error');
    expect(failed.payload).toMatchObject({ toolName: 'lookup-customer', args: '{not json' });
    expect(failed.payload.error).toBe('The arguments are not valid JSON; nothing was run. Call the tool again with a JSON object.');
    expect(failed.payload.error).not.toMatch(/received undefined/);
    expect(only(chunks, 'tool-result')).toHaveLength(0);
  });
});
