import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentChunk } from '../../lib/agent/chunks';
import { recoverAbandonedRuns } from '../../lib/agent/recovery';
import type { AgentStore } from '../../lib/agent/store';
import { createTool } from '../../lib/agent/tool';
import { ScriptedModel } from '../../lib/models/scripted';
import { collect, createRuntime, newThreadId, only } from '../support/harness';

const user = { id: 'user-ada', role: 'user' as const };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

/**
 * The scripted model as a process that dies mid-stream would run it: it streams the first
 * `keep` text deltas of its answer, then nothing more, ever.
 */
class DyingModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const;
  readonly provider = 'local';
  readonly modelId = 'dying';
  readonly supportedUrls = {};
  private readonly inner = new ScriptedModel();
  constructor(private readonly keep: number) {}
  doGenerate(options: LanguageModelV4CallOptions) {
    return this.inner.doGenerate(options);
  }
  async doStream(options: LanguageModelV4CallOptions) {
    const { stream } = await this.inner.doStream(options);
    const reader = stream.getReader();
    let deltas = 0;
    return {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        pull: async (controller) => {
          if (deltas >= this.keep) return new Promise<void>(() => {});
          const { value, done } = await reader.read();
          if (done) return controller.close();
          if (value.type === 'text-delta') deltas += 1;
          controller.enqueue(value);
        },
      }),
    };
  }
}

/** A store as a dead process leaves it: nothing renews the lease. */
function withoutRenewal(store: AgentStore): AgentStore {
  return Object.assign(Object.create(Object.getPrototypeOf(store)), store, { renewLease: async () => {} });
}

const waitFor = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await check()); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
};

describe('takeover after a crash in a model step', () => {
  it('another process continues the run from its last committed step; the step runs again and its text appears once', async () => {
    const healthy = await createRuntime();
    closers.push(healthy.close);
    const dying = await createRuntime({ model: new DyingModel(3), store: withoutRenewal(healthy.store) });
    const threadId = newThreadId();
    const started = await dying.agent.stream('look up customer cus-1', { threadId, resourceId: user.id });
    // The dead process's first step (the tool call) committed; its second step streamed a little.
    await waitFor(async () => (await healthy.db.runEvent.count({ where: { runId: started.runId, chunk: { path: ['type'], equals: 'text-delta' } } })) > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await healthy.db.run.update({ where: { id: started.runId }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });
    const lookups = await healthy.db.runEvent.count({ where: { runId: started.runId, chunk: { path: ['type'], equals: 'tool-result' } } });
    expect(lookups).toBe(1);

    const continued: Promise<AgentChunk[]>[] = [];
    const recovered = await recoverAbandonedRuns({
      store: healthy.store,
      takeOver: async ({ runId, agentId }) => {
        expect(agentId).toBe('ops-agent');
        const result = await healthy.agent.takeOverRun(runId);
        if (result) continued.push(collect(result.fullStream));
        return Boolean(result);
      },
    });
    expect(recovered).toContainEqual({ runId: started.runId, unknownToolCalls: [], continued: true });
    const chunks = await continued[0];
    expect(only(chunks, 'finish').at(-1)!.payload.finishReason).toBe('stop');

    const run = await healthy.db.run.findUniqueOrThrow({ where: { id: started.runId } });
    expect(run.status).toBe('completed');
    const events = (await healthy.db.runEvent.findMany({ where: { runId: started.runId }, orderBy: { id: 'asc' } })).map((event) => event.chunk as unknown as AgentChunk);
    // The tool ran once; the answer's text is in the log once, whole, and no error was recorded.
    expect(events.filter((chunk) => chunk.type === 'tool-result')).toHaveLength(1);
    expect(events.filter((chunk) => chunk.type === 'error')).toHaveLength(0);
    const text = only(events, 'text-delta').map((chunk) => chunk.payload.text).join('');
    const memory = await healthy.db.message.findMany({ where: { threadId, role: 'assistant' }, orderBy: { seq: 'asc' } });
    const answer = JSON.stringify(memory.at(-1)!.content);
    expect(text.length).toBeGreaterThan(10);
    expect(answer).toContain(text.trim().slice(0, 20));
    expect(text).toContain('Grace Hopper');
    // The text of the step appears once: the dead process's partial copy was dropped.
    const deltas = only(events, 'text-delta').map((chunk) => chunk.payload.text);
    expect(deltas.join('')).toBe(only(chunks, 'text-delta').map((chunk) => chunk.payload.text).join(''));
    // Both segments stream into the same assistant message.
    expect(new Set(only(events, 'start').map((chunk) => chunk.payload.messageId))).toEqual(new Set([started.messageId]));
    // Nothing is left to recover.
    expect((await recoverAbandonedRuns({ store: healthy.store })).map((entry) => entry.runId)).not.toContain(started.runId);
  });

  it('after an approved call: the model step that followed is taken over, the approved tool is not run again', async () => {
    const healthy = await createRuntime();
    closers.push(healthy.close);
    const dying = await createRuntime({ model: new DyingModel(1), store: withoutRenewal(healthy.store) });
    const started = await healthy.agent.stream('delete record rec-15', { threadId: newThreadId(), resourceId: user.id });
    const approval = only(await collect(started.fullStream), 'tool-call-approval')[0];
    await dying.agent.approveToolCall({ runId: started.runId, toolCallId: approval.payload.toolCallId, actor: user });
    await waitFor(async () => (await healthy.db.runEvent.count({ where: { runId: started.runId, chunk: { path: ['type'], equals: 'text-delta' } } })) > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await healthy.db.record.count({ where: { id: 'rec-15' } })).toBe(0);
    await healthy.db.run.update({ where: { id: started.runId }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });

    const continued = await healthy.agent.takeOverRun(started.runId);
    expect(continued).not.toBeNull();
    const chunks = await collect(continued!.fullStream);
    expect(only(chunks, 'finish').at(-1)!.payload.finishReason).toBe('stop');
    expect((await healthy.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('completed');
    const events = (await healthy.db.runEvent.findMany({ where: { runId: started.runId }, orderBy: { id: 'asc' } })).map((event) => event.chunk as unknown as AgentChunk);
    // The decision and the tool's result stay in the log once; the answer's text is there once, whole.
    expect(events.filter((chunk) => chunk.type === 'tool-call-resumed')).toHaveLength(1);
    expect(events.filter((chunk) => chunk.type === 'tool-result')).toHaveLength(1);
    expect(only(events, 'text-delta').map((chunk) => chunk.payload.text).join('')).toBe(only(chunks, 'text-delta').map((chunk) => chunk.payload.text).join(''));
    expect(await healthy.db.decision.count({ where: { runId: started.runId } })).toBe(1);
  });

  it('a tool of the step had started: the run is not taken over, the tool is never run again, the run ends as interrupted', async () => {
    let runs = 0;
    const slow = createTool({
      id: 'slow-lookup',
      description: 'a lookup that never returns in the dying process',
      inputSchema: z.object({ id: z.string() }),
      execute: async () => {
        runs += 1;
        return new Promise(() => {});
      },
    });
    const healthy = await createRuntime({ tools: [slow] });
    closers.push(healthy.close);
    const dying = await createRuntime({ tools: [slow], store: withoutRenewal(healthy.store) });
    const started = await dying.agent.stream('/tool slow-lookup {"id":"x"}', { threadId: newThreadId(), resourceId: user.id });
    await waitFor(async () => runs > 0);
    await healthy.db.run.update({ where: { id: started.runId }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });
    const state = (await healthy.db.run.findUniqueOrThrow({ where: { id: started.runId } })).state as { startedCalls?: string[] };
    expect(state.startedCalls).toHaveLength(1);

    expect(await healthy.agent.takeOverRun(started.runId)).toBeNull();
    const recovered = await recoverAbandonedRuns({
      store: healthy.store,
      takeOver: async ({ runId }) => Boolean(await healthy.agent.takeOverRun(runId)),
    });
    expect(recovered).toContainEqual({ runId: started.runId, unknownToolCalls: [] });
    expect((await healthy.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('failed');
    expect(runs).toBe(1);
  });

  it('a run whose lease is live is not taken over', async () => {
    const rt = await createRuntime({ model: new DyingModel(1) });
    closers.push(rt.close);
    const started = await rt.agent.stream('hello there', { threadId: newThreadId(), resourceId: user.id });
    await waitFor(async () => (await rt.db.runEvent.count({ where: { runId: started.runId } })) > 1);
    expect(await rt.agent.takeOverRun(started.runId)).toBeNull();
    expect((await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('running');
  });
});
