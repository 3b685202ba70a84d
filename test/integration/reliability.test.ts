import { afterAll, describe, expect, it } from 'vitest';
import { recoverAbandonedRuns } from '../../lib/agent/recovery';
import type { AgentStore } from '../../lib/agent/store';
import { collect, createRuntime, newThreadId, only } from '../support/harness';

const user = { id: 'user-ada', role: 'user' as const };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

describe('save, then publish', () => {
  it('when the pending call cannot be written, no approval chunk is published and the stream ends with a clear error', async () => {
    const base = await createRuntime();
    closers.push(base.close);
    // The real store, except that committing a pause fails (as a lost connection would).
    const failing: AgentStore = Object.assign(Object.create(Object.getPrototypeOf(base.store)), base.store, {
      suspendRun: async () => {
        throw new Error('connection terminated unexpectedly');
      },
    });
    const rt = await createRuntime({ store: failing });
    closers.push(rt.close);
    const started = await rt.agent.stream('delete record rec-13', { threadId: newThreadId(), resourceId: user.id });
    const chunks = await collect(started.fullStream);
    expect(only(chunks, 'tool-call-approval')).toHaveLength(0);
    expect(only(chunks, 'error')[0].payload.message).toMatch(/stopped because of an error/);
    expect(only(chunks, 'finish')[0].payload.finishReason).toBe('error');
    expect(await rt.db.pendingToolCall.count({ where: { runId: started.runId } })).toBe(0);
    expect((await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('failed');
    expect(await rt.db.record.count({ where: { id: 'rec-13' } })).toBe(1);
  });
});

describe('crash recovery', () => {
  it('a claimed call whose process died becomes "outcome unknown", is never re-executed, and the chat is told', async () => {
    const rt = await createRuntime();
    closers.push(rt.close);
    const started = await rt.agent.stream('delete record rec-14', { threadId: newThreadId(), resourceId: user.id });
    await collect(started.fullStream);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId } });
    // What a process leaves behind when it dies right after claiming: a claimed row, a stale lease.
    await rt.db.pendingToolCall.update({ where: { id: row.id }, data: { status: 'approved', decidedBy: user.id } });
    await rt.db.run.update({ where: { id: started.runId }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });

    const recovered = await recoverAbandonedRuns({ store: rt.store });
    expect(recovered).toContainEqual({ runId: started.runId, unknownToolCalls: ['delete-record'] });
    expect((await rt.db.pendingToolCall.findUniqueOrThrow({ where: { id: row.id } })).status).toBe('unknown');
    const run = await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } });
    expect(run).toMatchObject({ status: 'failed', state: null });
    const events = await rt.db.runEvent.findMany({ where: { runId: started.runId }, orderBy: { id: 'asc' } });
    expect(events.at(-2)!.chunk).toMatchObject({ type: 'error', payload: { message: expect.stringContaining('whether it finished is unknown') } });
    expect(events.at(-1)!.chunk).toMatchObject({ type: 'finish', payload: { finishReason: 'error' } });
    expect(await rt.db.record.count({ where: { id: 'rec-14' } })).toBe(1);
    // Nothing can decide it again, and a second sweep finds nothing.
    await expect(rt.agent.approveToolCall({ runId: started.runId, toolCallId: row.toolCallId, actor: user })).rejects.toMatchObject({
      code: 'ALREADY_DECIDED',
    });
    expect((await recoverAbandonedRuns({ store: rt.store })).map((run) => run.runId)).not.toContain(started.runId);
  });

  it('leaves runs alone while their lease is live', async () => {
    const rt = await createRuntime();
    closers.push(rt.close);
    const started = await rt.agent.stream('delete record rec-15', { threadId: newThreadId(), resourceId: user.id });
    await collect(started.fullStream);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId } });
    await rt.db.pendingToolCall.update({ where: { id: row.id }, data: { status: 'approved' } });
    await rt.db.run.update({ where: { id: started.runId }, data: { leaseExpiresAt: new Date(Date.now() + 60_000) } });
    expect((await recoverAbandonedRuns({ store: rt.store })).map((run) => run.runId)).not.toContain(started.runId);
    expect((await rt.db.pendingToolCall.findUniqueOrThrow({ where: { id: row.id } })).status).toBe('approved');
  });
});

describe('decisions are logged before the tool runs', () => {
  it('a reload (or a crash) while an approved tool executes still shows the decision', async () => {
    let release: () => void = () => {};
    const running = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => {};
    const executing = new Promise<void>((resolve) => (started = resolve));
    const { createTool } = await import('../../lib/agent/tool');
    const { z } = await import('zod');
    const slow = createTool({
      id: 'slow',
      description: 'waits',
      inputSchema: z.object({}),
      requireApproval: true,
      execute: async () => {
        started();
        await running;
        return { done: true };
      },
    });
    const rt = await createRuntime({ tools: [slow] });
    closers.push(rt.close);
    const paused = await rt.agent.generate('/tool slow {}', { threadId: newThreadId(), resourceId: user.id });
    const cont = await rt.agent.approveToolCall({ runId: paused.runId, actor: user });
    await executing;
    const logged = await rt.db.runEvent.findMany({ where: { runId: paused.runId }, orderBy: { id: 'asc' } });
    expect(logged.map((event) => (event.chunk as { type: string }).type)).toContain('tool-call-resumed');
    release();
    expect(await cont.finishReason).toBe('stop');
  });
});

describe('demo refunds', () => {
  it('never refunds more than is left on the order', async () => {
    const rt = await createRuntime();
    closers.push(rt.close);
    const reviewer = { id: 'reviewer-sam', role: 'reviewer' as const };
    const paused = await rt.agent.generate('/tool issue-refund {"orderId":"ord-3001","amount":500}', {
      threadId: newThreadId(),
      resourceId: user.id,
    });
    const done = await rt.agent.approveToolCallGenerate({ runId: paused.runId, actor: reviewer });
    expect(done.toolResults[0].result).toMatchObject({ refunded: false });
    expect(done.text).toContain('Refused: only $');
    const order = await rt.db.order.findUniqueOrThrow({ where: { id: 'ord-3001' } });
    expect(Number(order.refunded)).toBeLessThanOrEqual(Number(order.amount));
  });
});
