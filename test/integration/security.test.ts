import { MAX_TOOL_ARGS_DEPTH } from '../../lib/agent/model-output';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { AgentError } from '../../lib/agent/errors';
import { MAX_JSON_DEPTH } from '../../lib/agent/json-depth';
import { createTool, type Actor } from '../../lib/agent/tool';
import { createOpsTools } from '../../lib/demo/tools';
import { ScriptedModel } from '../../lib/models/scripted';
import { collect, createRuntime, newThreadId, only } from '../support/harness';

const ada: Actor = { id: 'user-ada', role: 'user' };
const rita: Actor = { id: 'reviewer-rita', role: 'reviewer' };
const sam: Actor = { id: 'reviewer-sam', role: 'reviewer' };

const runtimes: { close: () => Promise<void> }[] = [];
async function runtime(overrides: Parameters<typeof createRuntime>[0] = {}) {
  const rt = await createRuntime(overrides);
  runtimes.push(rt);
  return rt;
}
afterAll(async () => {
  await Promise.all(runtimes.map((rt) => rt.close()));
});

/** `[[[…]]]` nested `depth` levels deep. */
const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

async function refusal(promise: Promise<unknown>): Promise<AgentError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AgentError);
  return error as AgentError;
}

describe('the requester is whoever started the run', () => {
  it('four-eyes compares deciders with the stored requester, not with the resource a run names', async () => {
    const rt = await runtime();
    await rt.db.order.update({ where: { id: 'ord-1042' }, data: { refunded: 0, status: 'paid' } });
    // A privileged caller starts a run for Ada's resource: Rita stays its requester.
    const started = await rt.agent.generate('refund order ord-1042 for 250', { threadId: newThreadId(), resourceId: ada.id, requester: rita });
    expect(started.finishReason).toBe('suspended');
    const [call] = started.suspendedToolCalls;
    expect(await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).toMatchObject({ requestedBy: rita.id, resourceId: ada.id });
    expect(await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId } })).toMatchObject({ requestedBy: rita.id });

    for (const attempt of [
      () => rt.agent.approveToolCall({ runId: started.runId, toolCallId: call.toolCallId, actor: rita }),
      () => rt.agent.declineToolCall({ runId: started.runId, toolCallId: call.toolCallId, actor: rita, reason: 'mine' }),
      () => rt.agent.approveToolCallGenerate({ runId: started.runId, toolCallId: call.toolCallId, actor: rita }),
      () => rt.agent.declineToolCallGenerate({ runId: started.runId, toolCallId: call.toolCallId, actor: rita }),
    ]) {
      expect((await refusal(attempt())).code).toBe('FOUR_EYES');
    }
    // The resource owner, as an end user, may not decide a reviewer-only call either.
    expect((await refusal(rt.agent.approveToolCall({ runId: started.runId, toolCallId: call.toolCallId, actor: ada }))).code).toBe('FOUR_EYES');
    expect(await rt.db.decision.count({ where: { runId: started.runId } })).toBe(0);
    expect(Number((await rt.db.order.findUniqueOrThrow({ where: { id: 'ord-1042' } })).refunded)).toBe(0);

    const approved = await rt.agent.approveToolCallGenerate({ runId: started.runId, toolCallId: call.toolCallId, actor: sam });
    expect(approved.text).toContain('Refunded $250');
    expect(await rt.db.decision.findMany({ where: { runId: started.runId }, select: { actorId: true, actorRole: true } })).toEqual([
      { actorId: sam.id, actorRole: 'reviewer' },
    ]);
  });

  it('sendToolApproval by thread applies four-eyes against the requester too', async () => {
    const rt = await runtime();
    const threadId = newThreadId();
    const started = await rt.agent.generate('refund order ord-2001 for 150', { threadId, resourceId: rita.id, requester: rita });
    expect(started.finishReason).toBe('suspended');
    for (const approved of [true, false]) {
      const error = await refusal(rt.agent.sendToolApproval({ threadId, resourceId: rita.id, approved, actor: rita }));
      expect(error.code).toBe('FOUR_EYES');
    }
    expect(await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId } })).toMatchObject({ status: 'pending' });
  });

  it('without a requester the resource is the requester, as before', async () => {
    const rt = await runtime();
    const started = await rt.agent.generate('refund order ord-2001 for 150', { threadId: newThreadId(), resourceId: rita.id });
    expect(await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).toMatchObject({ requestedBy: rita.id });
    const error = await refusal(rt.agent.approveToolCall({ runId: started.runId, actor: rita }));
    expect(error.code).toBe('FOUR_EYES');
  });

  it('child runs and their pending calls carry the top-level requester, so four-eyes holds under delegation', async () => {
    const rt = await runtime();
    await rt.db.order.update({ where: { id: 'ord-2001' }, data: { refunded: 0, status: 'paid' } });
    const ops = new Agent({ id: 'ops-sub', name: 'Ops', instructions: 'o', model: new ScriptedModel(), tools: createOpsTools(rt.db), store: rt.store });
    const supervisor = new Agent({ id: 'sup-sec', name: 'Sup', instructions: 's', model: new ScriptedModel(), tools: [], agents: { ops }, store: rt.store });
    const prompt = '/tool issue-refund {"orderId":"ord-2001","amount":150}';
    const started = await supervisor.generate(`/tool agent-ops ${JSON.stringify({ prompt })}`, {
      threadId: newThreadId(),
      resourceId: ada.id,
      requester: rita,
    });
    expect(started.finishReason).toBe('suspended');
    const runs = await rt.db.run.findMany({ where: { OR: [{ id: started.runId }, { parentRunId: started.runId }] } });
    expect(runs).toHaveLength(2);
    expect(runs.map((run) => run.requestedBy)).toEqual([rita.id, rita.id]);
    const rows = await rt.db.pendingToolCall.findMany({ where: { rootRunId: started.runId } });
    expect(rows.map((row) => [row.kind, row.requestedBy]).sort()).toEqual([
      ['approval', rita.id],
      ['delegation', rita.id],
    ]);
    const [call] = started.suspendedToolCalls;
    expect((await refusal(supervisor.approveToolCall({ runId: started.runId, toolCallId: call.toolCallId, actor: rita }))).code).toBe('FOUR_EYES');
    const done = await supervisor.approveToolCallGenerate({ runId: started.runId, toolCallId: call.toolCallId, actor: sam });
    expect(done.finishReason).toBe('stop');
  });
});

describe('auto-resume records the real actor', () => {
  it("the answer's audit row names whoever sent the message, with their role", async () => {
    const rt = await runtime();
    const threadId = newThreadId();
    const asked = await rt.agent.generate("what's the weather?", { threadId, resourceId: ada.id, requester: ada });
    expect(asked.finishReason).toBe('suspended');
    const answered = await rt.agent.generate('Paris', { threadId, resourceId: ada.id, requester: ada, autoResumeSuspendedTools: true });
    expect(answered.text).toContain('Paris');
    const [decision] = await rt.db.decision.findMany({ where: { runId: asked.runId } });
    expect(decision).toMatchObject({ kind: 'resume', actorId: ada.id, actorRole: 'user' });
  });

  it('a reviewer-only question is not auto-resumed by its own requester (four-eyes); the message starts a new run', async () => {
    const executions: unknown[] = [];
    const rt = await runtime({
      tools: [
        createTool({
          id: 'confirm-payout',
          description: 'asks a reviewer for a payout code',
          inputSchema: z.object({}),
          resumeSchema: z.object({ code: z.string() }),
          approvers: 'reviewer',
          execute: (_input, { agent }) => {
            if (!agent.resumeData) return agent.suspend({ message: 'Which payout code?' });
            executions.push(agent.resumeData);
            return { ok: true };
          },
        }),
      ],
    });
    const threadId = newThreadId();
    const asked = await rt.agent.generate('/tool confirm-payout {}', { threadId, resourceId: rita.id, requester: rita });
    expect(asked.finishReason).toBe('suspended');
    const next = await rt.agent.generate('code 1234', { threadId, resourceId: rita.id, requester: rita, autoResumeSuspendedTools: true });
    expect(next.runId).not.toBe(asked.runId);
    expect(executions).toEqual([]);
    expect(await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: asked.runId } })).toMatchObject({ status: 'pending' });
    expect(await rt.db.decision.count({ where: { runId: asked.runId } })).toBe(0);
    // Another reviewer may answer it.
    const done = await rt.agent.resumeGenerate({ code: '1234' }, { runId: asked.runId, actor: sam });
    expect(done.finishReason).toBe('stop');
    expect(executions).toEqual([{ code: '1234' }]);
  });
});

describe('deeply nested JSON', () => {
  it('a model call with arguments nested too deep fails before any approval or execution', async () => {
    const rt = await runtime();
    const deep = JSON.stringify({ id: nested(MAX_JSON_DEPTH + 5) });
    const result = await rt.agent.generate(`/tool delete-record ${deep}`, { threadId: newThreadId(), resourceId: ada.id });
    expect(result.finishReason).toBe('stop');
    // Model arguments have their own, tighter depth limit (lib/agent/model-output.ts).
    expect(result.text).toContain(`nested more than ${MAX_TOOL_ARGS_DEPTH} levels`);
    expect(await rt.db.pendingToolCall.count({ where: { runId: result.runId } })).toBe(0);
  });

  it('edited arguments and resume data nested too deep are refused and the call stays pending', async () => {
    const rt = await runtime();
    const approval = await rt.agent.generate('/tool send-email {"to":"a@example.com","subject":"s","body":"b"}', { threadId: newThreadId(), resourceId: ada.id });
    const edit = await refusal(rt.agent.approveToolCall({ runId: approval.runId, actor: rita, args: { to: 'a@example.com', subject: 's', body: nested(100_000) } }));
    expect(edit.code).toBe('INVALID_ARGS');
    const question = await rt.agent.generate("what's the weather?", { threadId: newThreadId(), resourceId: ada.id });
    const answer = await refusal(rt.agent.resumeStream({ city: nested(100_000) }, { runId: question.runId, actor: ada }));
    expect(answer.code).toBe('INVALID_RESUME_DATA');
    for (const runId of [approval.runId, question.runId]) {
      expect(await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId } })).toMatchObject({ status: 'pending' });
    }
    const chunks = await collect((await rt.agent.resumeStream({ city: 'Oslo' }, { runId: question.runId, actor: ada })).fullStream);
    expect(only(chunks, 'tool-result')[0].payload.result).toMatchObject({ city: 'Oslo' });
  });
});
