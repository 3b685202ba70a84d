import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import type { AgentChunk } from '../../lib/agent/chunks';
import { createTool } from '../../lib/agent/tool';
import { loadThreadUIMessages } from '../../lib/chat/threads';
import { createDataTools } from '../../lib/demo/tools';
import { listInbox } from '../../lib/inbox/queries';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { collect, createRuntime, databaseUrl, newThreadId, only } from '../support/harness';
import { RecordingModel } from '../support/recording-model';

const ben = { id: 'user-ben', role: 'user' as const };
const rita = { id: 'user-rita', role: 'reviewer' as const };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});
beforeAll(() => {
  // The chat and inbox readers use the app's process-wide client.
  process.env.DATABASE_URL = databaseUrl();
});

async function opsRuntime() {
  const model = new RecordingModel();
  const rt = await createRuntime({ model });
  closers.push(rt.close);
  return { ...rt, model };
}

/** Reads a continuation to its end. */
async function finish(result: { fullStream: ReadableStream<AgentChunk>; finishReason: Promise<string> }) {
  const chunks = await collect(result.fullStream);
  return { chunks, finishReason: await result.finishReason };
}

type PromptMessage = RecordingModel['prompts'][number][number];
const toolCallsIn = (prompt: PromptMessage[]) =>
  prompt.flatMap((message) => (message.role === 'assistant' && typeof message.content !== 'string' ? message.content.filter((part) => part.type === 'tool-call') : []));
const toolResultsIn = (prompt: PromptMessage[]) =>
  prompt.flatMap((message) => (message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : []));

describe('a thread that moves on while a call waits', () => {
  it('"refund order ord-1042 for 150" twice as Ben: the second turn sees the first as pending, opens no second approval, and answers; the first stays decidable and continues in its own message', async () => {
    const rt = await opsRuntime();
    const threadId = newThreadId();
    const refundedBefore = Number((await rt.db.order.findUniqueOrThrow({ where: { id: 'ord-1042' } })).refunded);

    const first = await rt.agent.stream('refund order ord-1042 for 150', { threadId, resourceId: ben.id });
    const firstChunks = await collect(first.fullStream);
    const [approval] = only(firstChunks, 'tool-call-approval');
    expect(approval.payload).toMatchObject({ toolName: 'issue-refund', args: { orderId: 'ord-1042', amount: 150 }, approvers: 'reviewer' });
    const pendingId = approval.payload.toolCallId;

    const second = await rt.agent.stream('refund order ord-1042 for 150', { threadId, resourceId: ben.id });
    const secondChunks = await collect(second.fullStream);
    expect(await second.finishReason).toBe('stop');

    // The second run's model read the first call as pending, by its id, before answering.
    const prompt = rt.model.prompts.find((candidate) =>
      candidate.some((message) => message.role === 'user') && candidate.filter((message) => message.role === 'user').length === 2,
    )!;
    expect(prompt).toBeDefined();
    expect(toolCallsIn(prompt)).toEqual([expect.objectContaining({ toolCallId: pendingId, toolName: 'issue-refund', input: { orderId: 'ord-1042', amount: 150 } })]);
    expect(toolResultsIn(prompt)).toEqual([
      expect.objectContaining({
        toolCallId: pendingId,
        output: {
          type: 'json',
          value: expect.objectContaining({
            status: 'pending',
            waiting: [{ toolCallId: pendingId, toolName: 'issue-refund', args: { orderId: 'ord-1042', amount: 150 }, waitingFor: 'approval by a reviewer' }],
          }),
        },
      }),
    ]);
    // The pending turn sits before the new user message.
    expect(prompt.at(-1)).toMatchObject({ role: 'user' });

    // No second approval: the call got "already pending" with the first call's id.
    expect(only(secondChunks, 'tool-call-approval')).toHaveLength(0);
    const [result] = only(secondChunks, 'tool-result');
    expect(result.payload).toMatchObject({
      toolName: 'issue-refund',
      result: { status: 'already-pending', toolCallId: pendingId, runId: first.runId },
    });
    expect((result.payload.result as { message: string }).message).toContain(`pending call ${pendingId}`);
    expect(await second.text).toContain('already waiting for approval by a reviewer');
    expect(await rt.db.pendingToolCall.count({ where: { threadId, status: 'pending' } })).toBe(1);
    expect((await rt.agent.listSuspendedRuns({ threadId })).total).toBe(1);
    const inboxRows = (await listInbox({ status: 'pending', limit: 100 })).items.filter((item) => item.threadId === threadId);
    expect(inboxRows.map((item) => item.toolCallId)).toEqual([pendingId]);

    // The thread moved on; the first call is still decidable, and its continuation goes to its own message.
    const approved = await rt.agent.approveToolCall({ runId: first.runId, toolCallId: pendingId, actor: rita });
    const after = await finish(approved);
    expect(after.finishReason).toBe('stop');
    expect(after.chunks[0]).toMatchObject({ type: 'start', payload: { messageId: first.messageId } });
    expect(Number((await rt.db.order.findUniqueOrThrow({ where: { id: 'ord-1042' } })).refunded)).toBe(refundedBefore + 150);
    const messages = (await loadThreadUIMessages({ threadId, resourceId: ben.id }))!;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[1].id).toBe(first.messageId);
    expect(JSON.stringify(messages[1].parts)).toContain('Refunded $150 on ord-1042.');

    // A third turn reads the refund as done, nothing as pending.
    await finish(await rt.agent.stream('hello', { threadId, resourceId: ben.id }));
    const third = rt.model.prompts.at(-1)!;
    const outputs = toolResultsIn(third).map((part) => JSON.stringify(part.output));
    expect(outputs.some((output) => output.includes('Refunded $150 on ord-1042.'))).toBe(true);
    expect(outputs.some((output) => output.includes('"status":"pending"'))).toBe(false);
  });

  it('an identical call twice in one step opens one pending call; a different one opens its own', async () => {
    const rt = await opsRuntime();
    const threadId = newThreadId();
    const line = (id: string) => `/tool delete-record ${JSON.stringify({ id })}`;
    const run = await rt.agent.stream([line('rec-70'), line('rec-70'), line('rec-71')].join('\n'), { threadId, resourceId: ben.id });
    const chunks = await collect(run.fullStream);
    const approvals = only(chunks, 'tool-call-approval');
    expect(approvals.map((chunk) => chunk.payload.args)).toEqual([{ id: 'rec-70' }, { id: 'rec-71' }]);
    expect(only(chunks, 'tool-result').map((chunk) => chunk.payload.result)).toEqual([
      expect.objectContaining({ status: 'already-pending', toolCallId: approvals[0].payload.toolCallId }),
    ]);
    expect(await rt.db.pendingToolCall.count({ where: { threadId, status: 'pending' } })).toBe(2);
  });

  it('a question that waits is not asked again by a later turn ("what\'s the weather?" twice)', async () => {
    const rt = await opsRuntime();
    const threadId = newThreadId();
    const first = await rt.agent.generate("what's the weather?", { threadId, resourceId: ben.id });
    expect(first.finishReason).toBe('suspended');
    const second = await rt.agent.generate("what's the weather?", { threadId, resourceId: ben.id });
    expect(second.finishReason).toBe('stop');
    expect(second.toolResults).toEqual([
      expect.objectContaining({ toolName: 'get-weather', result: expect.objectContaining({ status: 'already-pending', toolCallId: first.suspendedToolCalls[0].toolCallId }) }),
    ]);
    expect(second.text).toContain('already waiting for an answer');
    expect(await rt.db.pendingToolCall.count({ where: { threadId, status: 'pending' } })).toBe(1);
  });

  it('under a supervisor: the next turn sees the sub-agent call as pending under its qualified id, and the sub-agent does not open it again', async () => {
    const db = createPrismaClient(databaseUrl());
    closers.push(() => db.$disconnect());
    const store = new PrismaAgentStore(db);
    const models = { supervisor: new RecordingModel(), data: new RecordingModel() };
    const dataAgent = new Agent({ id: 'data-agent', name: 'Data agent', instructions: 'd', model: models.data, tools: createDataTools(db), store });
    const supervisor = new Agent({ id: 'supervisor', name: 'Supervisor', instructions: 's', model: models.supervisor, tools: [], agents: { 'data-agent': dataAgent }, store });
    const threadId = newThreadId();
    const first = await supervisor.generate('find user cus-1', { threadId, resourceId: ben.id });
    const pendingId = first.suspendedToolCalls[0].toolCallId;
    expect(pendingId).toContain('~');

    const second = await supervisor.generate('find user cus-1', { threadId, resourceId: ben.id });
    expect(second.finishReason).toBe('stop');
    const supervisorPrompt = models.supervisor.prompts.at(-2)!;
    expect(toolResultsIn(supervisorPrompt)).toEqual([
      expect.objectContaining({
        toolName: 'agent-data-agent',
        output: { type: 'json', value: expect.objectContaining({ status: 'pending', waiting: [expect.objectContaining({ toolCallId: pendingId, toolName: 'find-user' })] }) },
      }),
    ]);
    // The data agent's second find-user read "already pending" and the supervisor relayed it.
    expect(second.text).toContain(`pending call ${pendingId}`);
    expect(await db.pendingToolCall.count({ where: { threadId, status: 'pending' } })).toBe(1);
  });
});

/**
 * A gate the agent's `beforeToolCall` hook waits on while held: a decision committed (its claim saves
 * the decision's events with it), its continuation not yet past the tool (the row not closed, the
 * run still `suspended`).
 */
class ToolGate {
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => {};

  hold() {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release() {
    this.open();
  }

  wait = async () => {
    await this.gate;
    return undefined;
  };
}

describe('listings right after a decision', () => {
  it('once send-tool-approval is accepted, suspended-runs, the inbox and the chat card no longer show the call as pending, and total equals what paging yields', async () => {
    const db = createPrismaClient(databaseUrl());
    closers.push(() => db.$disconnect());
    const gate = new ToolGate();
    const executed: number[] = [];
    const agent = new Agent({
      id: 'listing-agent',
      name: 'Listing agent',
      instructions: 'l',
      model: new RecordingModel(),
      store: new PrismaAgentStore(db),
      hooks: { beforeToolCall: gate.wait },
      tools: [
        createTool({
          id: 'gated',
          description: 'needs approval',
          inputSchema: z.object({ n: z.number() }),
          requireApproval: true,
          execute: ({ n }) => {
            executed.push(n);
            return { message: `ran ${n}` };
          },
        }),
      ],
    });
    const threadId = newThreadId();
    const runs = [];
    for (const n of [1, 2, 3]) {
      const paused = await agent.generate(`/tool gated {"n":${n}}`, { threadId, resourceId: ben.id });
      expect(paused.finishReason).toBe('suspended');
      runs.push(paused);
    }
    const pageThrough = async () => {
      const pages = [];
      for (let page = 0; page < 4; page += 1) pages.push(await agent.listSuspendedRuns({ threadId, page, perPage: 2 }));
      return { totals: new Set(pages.map((page) => page.total)), runIds: pages.flatMap((page) => page.runs.map((run) => run.runId)) };
    };
    const before = await pageThrough();
    expect(before.totals).toEqual(new Set([3]));
    expect(before.runIds.sort()).toEqual(runs.map((run) => run.runId).sort());

    gate.hold();
    const target = runs[1];
    const accepted = await agent.sendToolApproval({ threadId, resourceId: ben.id, toolCallId: target.suspendedToolCalls[0].toolCallId, approved: true, actor: ben });
    expect(accepted).toMatchObject({ accepted: true, runId: target.runId });
    // Right away, while the continuation has not run the tool yet (the run is still `suspended`).
    expect((await db.run.findUniqueOrThrow({ where: { id: target.runId } })).status).toBe('suspended');
    const listed = await agent.listSuspendedRuns({ threadId });
    expect(listed.total).toBe(2);
    expect(listed.runs.map((run) => run.runId)).toEqual([runs[2].runId, runs[0].runId]);
    const after = await pageThrough();
    expect(after.totals).toEqual(new Set([2]));
    expect(after.runIds).toEqual([runs[2].runId, runs[0].runId]);
    const inbox = (await listInbox({ status: 'pending', limit: 100 })).items.filter((item) => item.threadId === threadId);
    expect(inbox.map((item) => item.runId).sort()).toEqual([runs[0].runId, runs[2].runId].sort());
    const cards = (await loadThreadUIMessages({ threadId, resourceId: ben.id }))!.flatMap((message) =>
      message.parts.filter((part) => part.type === 'data-tool-call-approval'),
    );
    expect(cards.map((card) => [card.data.runId, card.data.resumed ?? false, card.data.decision?.approved, card.data.decision?.by])).toEqual([
      [runs[0].runId, false, undefined, undefined],
      [runs[1].runId, true, true, ben.id],
      [runs[2].runId, false, undefined, undefined],
    ]);
    expect(executed).toEqual([]);

    gate.release();
    expect((await finish(accepted.continuation)).finishReason).toBe('stop');
    expect(executed).toEqual([2]);
    expect((await agent.listSuspendedRuns({ threadId })).total).toBe(2);
  });
});
