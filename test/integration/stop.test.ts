import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { AgentError } from '../../lib/agent/errors';
import type { AgentStore } from '../../lib/agent/store';
import { createTool } from '../../lib/agent/tool';
import type { AgentChunk } from '../../lib/agent/chunks';
import { ScriptedModel } from '../../lib/models/scripted';
import { seed } from '../../lib/demo/seed';
import { createOpsTools } from '../../lib/demo/tools';
import { parseEnv } from '../../lib/env';
import { resolveModel } from '../../lib/models';
import { createPrismaClient } from '../../lib/store/db';
import { Notifications } from '../../lib/store/listen';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { openai, startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { collect, databaseUrl, newThreadId, only } from '../support/harness';

/*
 * Stop stops, and one thread runs one turn at a time (issue 30, item 3). The review's scenario: a
 * provider that stalls and then calls `issue-refund`; the user pressed Stop and sent the same
 * message again, and the first run — never cancelled — refunded a second time. Here each
 * "server" is a runtime of its own (its own Prisma client, store, LISTEN connection and agent), so
 * a Stop sent through one reaches a segment running on the other only through PostgreSQL.
 */

const user = { id: 'user-ada', role: 'user' as const };
const REFUND = openai.toolCalls([{ id: 'call_1', name: 'issue-refund', argChunks: ['{"orderId":"ord-1042",', '"amount":7}'] }]);

let fake: FakeProvider;
const servers: { close: () => Promise<void> }[] = [];

/**
 * A server's runtime: `listen: false` leaves out the LISTEN connection (a Stop is then heard at
 * lease renewal); `notifyOnly` renews the lease but ignores what the renewal reports (a Stop is
 * then heard by NOTIFY only).
 */
async function server(options: { listen?: boolean; notifyOnly?: boolean } = {}) {
  const db = createPrismaClient(databaseUrl());
  const notifications = options.listen === false ? undefined : new Notifications(databaseUrl());
  const prismaStore = new PrismaAgentStore(db, { notifications });
  const store: AgentStore = options.notifyOnly
    ? Object.assign(Object.create(Object.getPrototypeOf(prismaStore)), prismaStore, {
        renewLease: async (input: { runId: string; ms: number }) => {
          await prismaStore.renewLease(input);
        },
      })
    : prismaStore;
  const model = resolveModel(parseEnv({ OPENAI_COMPATIBLE_BASE_URL: `${fake.url}/v1`, MODEL: 'fake-model', OPENAI_COMPATIBLE_API_KEY: 'sk-test' }));
  const agent = new Agent({ id: 'ops-agent', name: 'Ops agent', instructions: 'test', model, tools: createOpsTools(db), store, maxRetries: 0 });
  const close = async () => {
    await notifications?.close();
    await db.$disconnect();
  };
  servers.push({ close });
  return { db, store, agent };
}

const refunded = async (db: ReturnType<typeof createPrismaClient>) => Number((await db.order.findUniqueOrThrow({ where: { id: 'ord-1042' } })).refunded);

beforeAll(async () => {
  await seed(databaseUrl());
});

// Each test has a provider of its own: its requests and scripted replies are that test's alone.
beforeEach(async () => {
  fake = await startFakeProvider();
});

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await fake.close();
});

describe('Stop', () => {
  it('stall, Stop on another server, send again: the refund happens once, and the first model call is aborted', async () => {
    const a = await server({ notifyOnly: true });
    const b = await server();
    const threadId = newThreadId();
    const before = await refunded(a.db);
    const STALL_MS = 4_000;
    // First request stalls, then would call the refund; the second turn refunds at once and answers.
    fake.reply({ ...REFUND, delayMs: STALL_MS }, REFUND, openai.text(['Refunded $7.']));
    const first = await a.agent.stream('Refund 7 on ord-1042', { threadId, resourceId: user.id, requester: user });
    const firstChunks = collect(first.fullStream);
    const sent = Date.now();
    await expect.poll(() => fake.requests.length, { timeout: 10_000 }).toBe(1);

    // While the turn runs, the same message again is refused and stores nothing.
    const again = await a.agent.stream('Refund 7 on ord-1042', { threadId, resourceId: user.id, requester: user }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(AgentError);
    expect((again as AgentError).code).toBe('RUN_IN_PROGRESS');
    expect((again as AgentError).status).toBe(409);

    // Stop through the other server.
    // (Server a hears it by NOTIFY only: its lease renewals ignore the Stop.)
    expect(await b.agent.stop({ threadId })).toEqual({ runId: first.runId });
    const chunks = await firstChunks;
    expect(only(chunks, 'error').map((chunk) => chunk.payload)).toEqual([{ message: 'Stopped.', code: 'RUN_STOPPED' }]);
    expect(only(chunks, 'finish').at(-1)?.payload.finishReason).toBe('other');
    expect(only(chunks, 'tool-call')).toEqual([]);
    // The abort signal reached the provider: it saw the connection close before it answered.
    await expect.poll(() => fake.requests[0].aborted, { timeout: 10_000 }).toBe(true);
    const run = await a.db.run.findUniqueOrThrow({ where: { id: first.runId } });
    expect(run.status).toBe('cancelled');
    expect((await a.db.thread.findUniqueOrThrow({ where: { id: threadId } })).runningRunId).toBeNull();
    // The chat shows it after a reload too.
    const events = await a.db.runEvent.findMany({ where: { runId: first.runId }, orderBy: { id: 'asc' } });
    expect(events.map((event) => (event.chunk as { type: string }).type)).toContain('error');

    // Sent again: it runs now and refunds once.
    const second = await a.agent.stream('Refund 7 on ord-1042', { threadId, resourceId: user.id, requester: user });
    const secondChunks = await collect(second.fullStream);
    expect(only(secondChunks, 'tool-result').map((chunk) => chunk.payload.toolName)).toEqual(['issue-refund']);
    expect(await second.text).toBe('Refunded $7.');

    // Past the first call's stall, nothing more happened: one refund of 7, three model calls.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, sent + STALL_MS + 1_000 - Date.now())));
    expect((await refunded(a.db)) - before).toBe(7);
    expect(fake.requests).toHaveLength(3);
    expect(fake.pending()).toBe(0);
    // Nothing of the stopped run is still running on any server.
    expect(await b.agent.stop({ threadId })).toBeNull();
  });

  it('is heard at the next lease renewal by a server without a LISTEN connection', async () => {
    const a = await server({ listen: false });
    const b = await server();
    const threadId = newThreadId();
    fake.reply({ ...REFUND, delayMs: 8_000 });
    const first = await a.agent.stream('Refund 7 on ord-1042', { threadId, resourceId: user.id, requester: user });
    const chunks = collect(first.fullStream);
    await expect.poll(() => fake.requests.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await b.agent.stop({ threadId })).toEqual({ runId: first.runId });
    expect(only(await chunks, 'error').map((chunk) => chunk.payload.code)).toEqual(['RUN_STOPPED']);
    // Before the stalled reply would have come: the stop, not the provider, ended the call.
    await expect.poll(() => fake.requests[0].aborted, { timeout: 10_000 }).toBe(true);
    expect((await a.db.run.findUniqueOrThrow({ where: { id: first.runId } })).status).toBe('cancelled');
  });

  it('does not start a tool the model asked for once Stop was pressed, and a waiting approval is not a running turn', async () => {
    const a = await server();
    const threadId = newThreadId();
    const before = await refunded(a.db);
    // A refund above 100 waits for a reviewer: the turn ends waiting, and the thread may move on.
    fake.reply(openai.toolCalls([{ id: 'call_9', name: 'issue-refund', argChunks: ['{"orderId":"ord-1042","amount":150}'] }]));
    const waiting = await a.agent.stream('Refund 150 on ord-1042', { threadId, resourceId: user.id, requester: user });
    expect(await waiting.finishReason).toBe('suspended');
    expect(await a.agent.stop({ threadId })).toBeNull();
    // A new message runs; its model call asks for a refund, and Stop comes while the model still streams.
    fake.reply({ ...REFUND, delayMs: 1_500 });
    const next = await a.agent.stream('Refund 7 instead', { threadId, resourceId: user.id, requester: user });
    const chunks = collect(next.fullStream);
    await expect.poll(() => fake.requests.length, { timeout: 10_000 }).toBe(2);
    await a.agent.stop({ threadId });
    expect(only(await chunks, 'tool-result')).toEqual([]);
    expect((await refunded(a.db)) - before).toBe(0);
    // The waiting approval still waits.
    expect(await a.db.pendingToolCall.count({ where: { threadId, status: 'pending' } })).toBe(1);
  });
});

describe('Stop with the offline scripted model', () => {
  it('cuts its answer short: the scripted model ends its stream when the call is aborted', async () => {
    const db = createPrismaClient(databaseUrl());
    servers.push({ close: () => db.$disconnect() });
    const store = new PrismaAgentStore(db);
    const agent = new Agent({ id: 'ops-agent', name: 'Ops agent', instructions: 'test', model: new ScriptedModel({ delayMs: 150 }), tools: createOpsTools(db), store });
    const threadId = newThreadId();
    const run = await agent.stream('hello', { threadId, resourceId: user.id, requester: user });
    const seen: AgentChunk[] = [];
    let stopped = false;
    for await (const chunk of run.fullStream) {
      seen.push(chunk);
      if (chunk.type === 'text-delta' && !stopped) {
        stopped = true;
        expect(await agent.stop({ threadId })).toEqual({ runId: run.runId });
      }
    }
    expect(only(seen, 'error').map((chunk) => chunk.payload.code)).toEqual(['RUN_STOPPED']);
    // The full answer has 25 words; the stop came after the first few.
    expect(only(seen, 'text-delta').length).toBeLessThan(15);
    expect((await db.run.findUniqueOrThrow({ where: { id: run.runId } })).status).toBe('cancelled');
  });
});

describe('Stop while a tool runs', () => {
  it('the started tool is told (abort signal) and left to finish; the next call of the step never starts; memory says which ran', async () => {
    const a = await server();
    const events: string[] = [];
    // A tool that runs until it hears the Stop, then finishes its work and reports it.
    const export_ = createTool({
      id: 'export-report',
      description: 'exports a report',
      inputSchema: z.object({ name: z.string() }),
      execute: async ({ name }, { abortSignal }) => {
        events.push('export started');
        await new Promise((resolve) => abortSignal?.addEventListener('abort', resolve, { once: true }));
        events.push('export finished');
        return { exported: name };
      },
    });
    const agent = new Agent({ id: 'ops-agent', name: 'Ops agent', instructions: 'test', model: a.agent.model, tools: [export_, ...createOpsTools(a.db)], store: a.store, maxRetries: 0 });
    const threadId = newThreadId();
    const before = await refunded(a.db);
    fake.reply(
      openai.toolCalls([
        { id: 'call_1', name: 'export-report', argChunks: ['{"name":"q3"}'] },
        { id: 'call_2', name: 'issue-refund', argChunks: ['{"orderId":"ord-1042","amount":7}'] },
      ]),
    );
    const run = await agent.stream('Export q3, then refund 7', { threadId, resourceId: user.id, requester: user });
    const chunks = collect(run.fullStream);
    await expect.poll(() => events, { timeout: 10_000 }).toEqual(['export started']);
    expect(await agent.stop({ threadId })).toEqual({ runId: run.runId });
    const seen = await chunks;
    expect(events).toEqual(['export started', 'export finished']);
    expect(only(seen, 'tool-result').map((chunk) => [chunk.payload.toolName, chunk.payload.result])).toEqual([['export-report', { exported: 'q3' }]]);
    expect(only(seen, 'tool-error').map((chunk) => [chunk.payload.toolName, chunk.payload.error])).toEqual([
      ['issue-refund', 'The run was stopped before this call started; it did not run.'],
    ]);
    expect(only(seen, 'error').map((chunk) => chunk.payload.code)).toEqual(['RUN_STOPPED']);
    expect((await refunded(a.db)) - before).toBe(0);
    expect(fake.requests).toHaveLength(1); // no model step after the Stop
    // The next turn's model reads what ran and what did not.
    const memory = await a.db.message.findMany({ where: { threadId }, orderBy: { seq: 'asc' } });
    expect(memory.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(memory[2].content)).toContain('q3');
    expect(JSON.stringify(memory[2].content)).toContain('stopped before this call started');
    expect((await a.db.run.findUniqueOrThrow({ where: { id: run.runId } })).status).toBe('cancelled');
  });
});

describe('one turn of a thread at a time', () => {
  it('of concurrent sends on a new thread and on an existing one, exactly one runs; the others get 409 RUN_IN_PROGRESS', async () => {
    const a = await server();
    const b = await server();
    for (const existing of [false, true]) {
      const threadId = newThreadId();
      if (existing) {
        fake.reply(openai.text(['Hello.']));
        const hello = await a.agent.stream('Hello', { threadId, resourceId: user.id, requester: user });
        expect(await hello.text).toBe('Hello.');
      }
      const requestsBefore = fake.requests.length;
      fake.reply({ ...openai.text(['Done.']), delayMs: 1_000 });
      const sends = await Promise.allSettled(
        [a, b, a, b, a].map((s, n) => s.agent.stream(`Message ${n}`, { threadId, resourceId: user.id, requester: user })),
      );
      const ran = sends.filter((send) => send.status === 'fulfilled');
      const refused = sends.filter((send): send is PromiseRejectedResult => send.status === 'rejected');
      expect(ran).toHaveLength(1);
      expect(refused.map((send) => (send.reason as AgentError).code)).toEqual(['RUN_IN_PROGRESS', 'RUN_IN_PROGRESS', 'RUN_IN_PROGRESS', 'RUN_IN_PROGRESS']);
      expect(await (ran[0] as PromiseFulfilledResult<Awaited<ReturnType<Agent['stream']>>>).value.text).toBe('Done.');
      expect(fake.requests.length - requestsBefore).toBe(1);
      // Only the message that ran is in the thread's memory.
      const messages = await a.db.message.findMany({ where: { threadId, role: 'user' } });
      expect(messages).toHaveLength(existing ? 2 : 1);
      // Once it finished, the thread takes the next message.
      fake.reply(openai.text(['Next.']));
      expect(await (await a.agent.stream('Next', { threadId, resourceId: user.id, requester: user })).text).toBe('Next.');
    }
  });
});
