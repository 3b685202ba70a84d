import { afterAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../lib/agent/errors';
import { collect, createRuntime, newThreadId, only } from '../support/harness';

const user = { id: 'user-ada', role: 'user' as const };
const runtimes: { close: () => Promise<void> }[] = [];
async function runtime() {
  const rt = await createRuntime();
  runtimes.push(rt);
  return rt;
}
afterAll(async () => {
  await Promise.all(runtimes.map((rt) => rt.close()));
});

describe('approval before execution', () => {
  it('pauses delete-record, stores the pending call before publishing, and a brand-new runtime approves it: the tool runs once and the run completes', async () => {
    const first = await runtime();
    await first.db.record.upsert({ where: { id: 'rec-9' }, create: { id: 'rec-9', title: 'r', body: 'b' }, update: {} });
    const threadId = newThreadId();
    const started = await first.agent.stream('delete record rec-9', { threadId, resourceId: user.id });
    const chunks = await collect(started.fullStream);
    const [approval] = only(chunks, 'tool-call-approval');
    expect(approval.payload).toMatchObject({ toolName: 'delete-record', args: { id: 'rec-9' } });
    expect(approval.payload.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(await started.finishReason).toBe('suspended');
    // Nothing ran yet; the pending row exists.
    expect(await first.db.record.count({ where: { id: 'rec-9' } })).toBe(1);
    const pending = await first.db.pendingToolCall.findMany({ where: { runId: started.runId } });
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ status: 'pending', toolCallId: approval.payload.toolCallId });
    await first.close();

    // A fresh client and fresh agent objects: nothing in memory is shared with `first`.
    const second = await runtime();
    const approved = await second.agent.approveToolCall({
      runId: started.runId,
      toolCallId: approval.payload.toolCallId,
      actor: user,
      fingerprint: approval.payload.fingerprint,
    });
    const continuation = await collect(approved.fullStream);
    const types = continuation.map((chunk) => chunk.type);
    expect(types.indexOf('tool-call-resumed')).toBeLessThan(types.indexOf('tool-result'));
    expect(only(continuation, 'tool-call-resumed')).toHaveLength(1);
    expect(only(continuation, 'tool-result')[0].payload.result).toMatchObject({ deleted: true, id: 'rec-9' });
    expect(await approved.text).toContain('Record rec-9 was deleted');
    expect(await approved.finishReason).toBe('stop');

    expect(await second.db.record.count({ where: { id: 'rec-9' } })).toBe(0);
    const run = await second.db.run.findUniqueOrThrow({ where: { id: started.runId } });
    expect(run.status).toBe('completed');
    expect(run.state).toBeNull();
    const decisions = await second.db.decision.findMany({ where: { runId: started.runId } });
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ kind: 'approval', approved: true, actorId: 'user-ada' });

    // A second approval is refused with the winning decision and runs nothing.
    await expect(
      second.agent.approveToolCall({ runId: started.runId, toolCallId: approval.payload.toolCallId, actor: user }),
    ).rejects.toMatchObject({ code: 'ALREADY_DECIDED', details: { status: 'completed', decidedBy: user.id } });
    await expect(second.agent.approveToolCall({ runId: started.runId, actor: user })).rejects.toMatchObject({
      code: 'NO_SNAPSHOT_FOUND',
    });
    expect(await second.db.decision.count({ where: { runId: started.runId } })).toBe(1);
  });

  it('requireToolApproval: true on the request pauses lookup-customer, which needs no approval of its own', async () => {
    const rt = await runtime();
    const free = await rt.agent.stream('look up customer cus-1', { threadId: newThreadId(), resourceId: user.id });
    const freeChunks = await collect(free.fullStream);
    expect(only(freeChunks, 'tool-call-approval')).toHaveLength(0);
    expect(only(freeChunks, 'tool-result')[0].payload.toolName).toBe('lookup-customer');

    const gated = await rt.agent.stream('look up customer cus-1', {
      threadId: newThreadId(),
      resourceId: user.id,
      requireToolApproval: true,
    });
    const chunks = await collect(gated.fullStream);
    expect(only(chunks, 'tool-call-approval').map((chunk) => chunk.payload.toolName)).toEqual(['lookup-customer']);
    expect(only(chunks, 'tool-result')).toHaveLength(0);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: gated.runId } });
    expect(row.policy).toBe('request');
  });

  it('a decline never executes the tool and the model answers with the reason', async () => {
    const rt = await runtime();
    const threadId = newThreadId();
    const started = await rt.agent.stream('delete record rec-10', { threadId, resourceId: user.id });
    const [approval] = only(await collect(started.fullStream), 'tool-call-approval');
    const declined = await rt.agent.declineToolCall({
      runId: started.runId,
      toolCallId: approval.payload.toolCallId,
      actor: user,
      reason: 'keep it for the audit',
    });
    const chunks = await collect(declined.fullStream);
    expect(only(chunks, 'tool-output-denied')[0].payload.approval).toEqual({ approved: false, reason: 'keep it for the audit' });
    expect(await declined.text).toContain('keep it for the audit');
    expect(await rt.db.record.count({ where: { id: 'rec-10' } })).toBe(1);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId } });
    expect(row).toMatchObject({ status: 'declined', decisionReason: 'keep it for the audit' });
  });

  it('resume data failing resumeSchema is refused with the issues and the call stays pending; valid data completes it', async () => {
    const rt = await runtime();
    const started = await rt.agent.stream("what's the weather?", { threadId: newThreadId(), resourceId: user.id });
    const [suspended] = only(await collect(started.fullStream), 'tool-call-suspended');
    expect(suspended.payload.suspendPayload).toEqual({ message: 'Which city should I check the weather for?' });
    expect(JSON.parse(suspended.payload.resumeSchema).required).toEqual(['city']);

    const target = { runId: started.runId, toolCallId: suspended.payload.toolCallId, actor: user };
    const refused = await rt.agent.resumeStream({ city: '' }, target).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AgentError);
    expect(refused).toMatchObject({ code: 'INVALID_RESUME_DATA', status: 422 });
    expect((refused as AgentError).details).toEqual([expect.objectContaining({ path: ['city'] })]);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId } });
    expect(row.status).toBe('pending');

    const resumed = await rt.agent.resumeStream({ city: 'Paris' }, target);
    expect(await resumed.text).toContain('Weather in Paris: sunny, 21 °C');
    expect(await resumed.finishReason).toBe('stop');
  });

  it('an unknown toolCallId or run is refused and executes nothing', async () => {
    const rt = await runtime();
    const started = await rt.agent.stream('delete record rec-11', { threadId: newThreadId(), resourceId: user.id });
    await collect(started.fullStream);
    await expect(rt.agent.approveToolCall({ runId: started.runId, toolCallId: 'nope', actor: user })).rejects.toMatchObject({
      code: 'TOOL_CALL_NOT_SUSPENDED',
    });
    await expect(rt.agent.approveToolCall({ runId: crypto.randomUUID(), actor: user })).rejects.toMatchObject({
      code: 'NO_SNAPSHOT_FOUND',
    });
    await expect(
      rt.agent.approveToolCall({ runId: started.runId, actor: user, fingerprint: 'f'.repeat(64) }),
    ).rejects.toMatchObject({ code: 'FINGERPRINT_MISMATCH' });
    expect(await rt.db.record.count({ where: { id: 'rec-11' } })).toBe(1);
    expect(await rt.db.decision.count({ where: { runId: started.runId } })).toBe(0);
  });
});
