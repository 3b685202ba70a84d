import { afterAll, describe, expect, it } from 'vitest';
import { OUTCOME_UNKNOWN } from '../../lib/agent/history';
import { recoverAbandonedRuns } from '../../lib/agent/recovery';
import { collect, createRuntime, newThreadId } from '../support/harness';
import { RecordingModel } from '../support/recording-model';

const user = { id: 'user-ada', role: 'user' as const };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

describe("a run that stops early keeps what it did in the thread's memory", () => {
  it('a call whose process died is remembered with an "outcome unknown" result, and the next turn’s model reads it', async () => {
    const model = new RecordingModel();
    const rt = await createRuntime({ model });
    closers.push(rt.close);
    const threadId = newThreadId();
    const started = await rt.agent.stream('/tool lookup-customer {"customerId":"cus-1"}\n/tool delete-record {"id":"rec-16"}', {
      threadId,
      resourceId: user.id,
    });
    await collect(started.fullStream);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId, toolName: 'delete-record' } });
    // What a process leaves behind when it dies while the approved delete executes.
    await rt.db.pendingToolCall.update({ where: { id: row.id }, data: { status: 'approved', decidedBy: user.id } });
    await rt.db.run.update({ where: { id: started.runId }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });
    expect(await recoverAbandonedRuns({ store: rt.store })).toContainEqual({ runId: started.runId, unknownToolCalls: ['delete-record'] });

    const stored = await rt.db.message.findMany({ where: { threadId }, orderBy: { seq: 'asc' } });
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(stored[2].content).toEqual([
      expect.objectContaining({ toolName: 'lookup-customer', output: expect.objectContaining({ type: 'json' }) }),
      expect.objectContaining({ toolName: 'delete-record', toolCallId: row.toolCallId, output: { type: 'error-text', value: OUTCOME_UNKNOWN } }),
    ]);

    await rt.agent.generate('what happened?', { threadId, resourceId: user.id });
    const prompt = model.prompts.at(-1)!;
    expect(prompt.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
  });

  it('a failed continuation remembers the executed call with its result (the in-process failure path)', async () => {
    const model = new RecordingModel();
    let failNext = false;
    const original = model.doStream.bind(model);
    model.doStream = async (options) => {
      if (failNext) throw Object.assign(new Error('upstream 503'), { statusCode: 503 });
      return original(options);
    };
    const rt = await createRuntime({ model, maxRetries: 0 });
    closers.push(rt.close);
    const threadId = newThreadId();
    const paused = await rt.agent.generate('delete record rec-17', { threadId, resourceId: user.id });
    failNext = true;
    const failed = await rt.agent.approveToolCallGenerate({ runId: paused.runId, actor: user });
    expect(failed).toMatchObject({ finishReason: 'error', error: { code: 'MODEL_PROVIDER_DOWN' } });
    expect(failed.toolResults).toEqual([expect.objectContaining({ toolName: 'delete-record', result: expect.objectContaining({ deleted: true }) })]);
    expect(await rt.db.record.count({ where: { id: 'rec-17' } })).toBe(0);
    const stored = await rt.db.message.findMany({ where: { threadId }, orderBy: { seq: 'asc' } });
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(stored[2].content)).toContain('Record rec-17 was deleted.');
  });
});
