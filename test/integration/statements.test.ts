import { afterAll, describe, expect, it } from 'vitest';
import { Agent } from '../../lib/agent/agent';
import type { AgentChunk } from '../../lib/agent/chunks';
import { seed } from '../../lib/demo/seed';
import { createDataTools, createOpsTools } from '../../lib/demo/tools';
import { decisionChunks } from '../../lib/agent/pending';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { countingPool } from '../support/counting-pool';
import { databaseUrl, newThreadId } from '../support/harness';

/*
 * SQL statements on the hot path, counted at the pg pool (every round-trip to PostgreSQL, whatever
 * sends it). The bounds are the design: a run starts and pauses in 2 statements (a third only if a
 * slow model step lets the 50 ms event flush fire first); an approval or decline lets its tool run
 * after 1 (the claim, which also records the decision, takes the lease and saves the decision's
 * events); a decision that must validate data against the tool first (edited arguments, an answer)
 * after 2 (a read, then the claim with the events).
 */

const user = { id: 'user-ada', role: 'user' as const };
const log: string[] = [];
const named: boolean[] = [];
const db = createPrismaClient(databaseUrl(), { pool: (config) => countingPool(config, log, named) });
afterAll(() => db.$disconnect());

/** The counter's value when the next tool starts executing. */
let atToolStart: number | null = null;

async function runtime() {
  await seed(databaseUrl());
  return new Agent({
    id: 'ops-agent',
    name: 'Ops',
    instructions: 'count',
    model: new ScriptedModel(),
    tools: createOpsTools(db),
    store: new PrismaAgentStore(db),
    hooks: {
      beforeToolCall: () => {
        atToolStart ??= log.length;
      },
    },
  });
}

/** Reads a stream to its end, noting how many statements had been sent when `type` arrived. */
async function readCounting(stream: ReadableStream<AgentChunk>, start: number, type: AgentChunk['type']) {
  let atChunk: number | null = null;
  const chunks: AgentChunk[] = [];
  for await (const chunk of stream) {
    if (chunk.type === type) atChunk ??= log.length - start;
    chunks.push(chunk);
  }
  return { atChunk, total: log.length - start, chunks };
}

const counts: Record<string, number | null> = {};
afterAll(() => {
  console.log('SQL statements per operation:', JSON.stringify(counts));
});

describe('statements on the hot path', () => {
  it('stream(): ≤ 3 statements before the approval chunk; a decision: 1 before the tool runs', async () => {
    const agent = await runtime();
    const threadId = newThreadId();
    // A thread with history, so the history read is part of what is counted.
    await (await agent.generate('look up customer cus-1', { threadId, resourceId: user.id })).text;

    let start = log.length;
    const started = await agent.stream('/tool send-email {"to":"count@example.com","subject":"count","body":"x"}', { threadId, resourceId: user.id });
    const paused = await readCounting(started.fullStream, start, 'tool-call-approval');
    counts.streamBeforeApprovalChunk = paused.atChunk;
    counts.streamTotal = paused.total;
    expect(paused.chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'suspended' } });
    expect(paused.atChunk).toBeLessThanOrEqual(3);

    start = log.length;
    atToolStart = null;
    const decided = await agent.approveToolCall({ runId: started.runId, actor: user });
    const done = await readCounting(decided.fullStream, start, 'tool-result');
    counts.approvalBeforeTool = atToolStart === null ? null : atToolStart - start;
    counts.approvalTotal = done.total;
    expect(done.chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'stop' } });
    expect(atToolStart).not.toBeNull();
    expect(atToolStart! - start).toBeLessThanOrEqual(1);
    // That one statement is the claim, and it saved what was published before the tool ran.
    expect(log[start]).toMatch(/UPDATE pending_tool_calls/);
    expect(log[start]).toMatch(/INSERT INTO run_events/);
  });

  it('the hot path sends only named prepared statements (parsed and planned once per connection)', async () => {
    const agent = await runtime();
    const start = log.length;
    const paused = await agent.generate('/tool send-email {"to":"named@example.com","subject":"named","body":"x"}', { threadId: newThreadId(), resourceId: user.id });
    expect(paused.finishReason).toBe('suspended');
    await (await agent.approveToolCall({ runId: paused.runId, actor: user })).text;
    const sent = log.slice(start).map((text, i) => ({ text: text.replace(/\s+/g, ' ').slice(0, 80), named: named[start + i] }));
    const runtimeStatements = sent.filter((statement) => !statement.text.includes('outbox_emails')); // the tool's own write aside
    expect(runtimeStatements.length).toBeGreaterThanOrEqual(4);
    expect(runtimeStatements.filter((statement) => !statement.named)).toEqual([]);
  });

  it('a decline: 1 statement before its outcome is recorded', async () => {
    const agent = await runtime();
    const paused = await agent.generate('delete record rec-7', { threadId: newThreadId(), resourceId: user.id });
    expect(paused.finishReason).toBe('suspended');
    const start = log.length;
    const declined = await agent.declineToolCall({ runId: paused.runId, actor: user, reason: 'no' });
    const done = await readCounting(declined.fullStream, start, 'tool-output-denied');
    counts.declineBeforeOutcome = done.atChunk;
    expect(done.chunks.at(-1)).toMatchObject({ type: 'finish' });
    expect(done.atChunk).toBeLessThanOrEqual(1);
  });

  it('an approval with edited arguments and an answer to a question: ≤ 2 statements before the tool runs', async () => {
    const agent = await runtime();
    const paused = await agent.generate('/tool send-email {"to":"count@example.com","subject":"draft","body":"x"}', {
      threadId: newThreadId(),
      resourceId: user.id,
    });
    let start = log.length;
    atToolStart = null;
    const edited = await agent.approveToolCall({
      runId: paused.runId,
      actor: user,
      args: { to: 'count@example.com', subject: 'edited', body: 'y' },
    });
    const afterEdit = await readCounting(edited.fullStream, start, 'tool-result');
    counts.editedApprovalBeforeTool = atToolStart === null ? null : atToolStart - start;
    expect(afterEdit.chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'stop' } });
    expect(atToolStart! - start).toBeLessThanOrEqual(2);

    const asked = await agent.generate("what's the weather?", { threadId: newThreadId(), resourceId: user.id });
    expect(asked.finishReason).toBe('suspended');
    start = log.length;
    atToolStart = null;
    const answered = await agent.resumeStream({ city: 'Paris' }, { runId: asked.runId, actor: user });
    const afterAnswer = await readCounting(answered.fullStream, start, 'tool-result');
    counts.answerBeforeTool = atToolStart === null ? null : atToolStart - start;
    counts.answerTotal = afterAnswer.total;
    expect(afterAnswer.chunks.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'stop' } });
    expect(atToolStart! - start).toBeLessThanOrEqual(2);
  });

  it('a refused decision reads why only after its claim claimed nothing', async () => {
    const agent = await runtime();
    const paused = await agent.generate('delete record rec-41', { threadId: newThreadId(), resourceId: user.id });
    await (await agent.approveToolCall({ runId: paused.runId, actor: user })).text;
    const start = log.length;
    await expect(agent.approveToolCall({ runId: paused.runId, toolCallId: paused.suspendedToolCalls[0].toolCallId, actor: user })).rejects.toMatchObject({
      code: 'ALREADY_DECIDED',
    });
    const sent = log.slice(start);
    counts.refusal = sent.length;
    // The claim, then one read of the run and its calls.
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/UPDATE pending_tool_calls/);
  });

  it('the claim saves exactly the chunks it publishes, as decisionChunks builds them (a top-level call and a sub-agent call)', async () => {
    const store = new PrismaAgentStore(db);
    const ops = await runtime();
    const data = new Agent({ id: 'data-agent', name: 'Data', instructions: 'd', model: new ScriptedModel(), tools: createDataTools(db), store });
    const supervisor = new Agent({ id: 'supervisor', name: 'Supervisor', instructions: 's', model: new ScriptedModel(), tools: [], agents: { 'data-agent': data }, store });
    const cases = [
      { agent: ops, prompt: '/tool send-email {"to":"same@example.com","subject":"same","body":"x"}' },
      { agent: supervisor, prompt: 'find user 12345' },
    ];
    for (const { agent, prompt } of cases) {
      const paused = await agent.generate(prompt, { threadId: newThreadId(), resourceId: user.id });
      expect(paused.finishReason).toBe('suspended');
      const start = log.length;
      const approved = await agent.approveToolCall({ runId: paused.runId, toolCallId: paused.suspendedToolCalls[0].toolCallId, actor: user });
      const published: AgentChunk[] = [];
      for await (const chunk of approved.fullStream) published.push(chunk);
      // The first statement of the decision saved the decision's chunks; nothing else saved them.
      expect(log[start]).toMatch(/INSERT INTO run_events/);
      const [startChunk, resumed] = published;
      expect(startChunk.type).toBe('start');
      expect(resumed.type).toBe('tool-call-resumed');
      const saved = (await db.runEvent.findMany({ where: { runId: paused.runId }, orderBy: { id: 'asc' } })).map((event) => event.chunk as AgentChunk);
      const resumedSaved = saved.filter((chunk) => chunk.type === 'tool-call-resumed');
      expect(resumedSaved).toEqual([resumed]);
      expect(saved[saved.indexOf(resumedSaved[0]) - 1]).toEqual(startChunk);
      // Built in SQL, they equal what the runtime's own decisionChunks makes of the row as claimed.
      const row = (await db.pendingToolCall.findFirstOrThrow({ where: { rootRunId: paused.runId, kind: 'approval' } }));
      const run = await db.run.findUniqueOrThrow({ where: { id: paused.runId } });
      const { toPendingCall } = await import('../../lib/store/rows');
      const decision = (resumed as Extract<AgentChunk, { type: 'tool-call-resumed' }>).payload.decision;
      expect(decision).toMatchObject({ approved: true, by: user.id });
      const expected = decisionChunks({ id: run.id, messageId: run.messageId }, toPendingCall({ ...row, status: 'pending' }), decision).top;
      expect([startChunk, resumed]).toEqual(expected);
      if (agent === supervisor) expect(resumed.payload).toMatchObject({ leafToolCallId: row.toolCallId, toolCallId: row.rootToolCallId });
    }
  });

  it('a quorum call’s resumed chunk names its quorum and who approved it, in SQL as decisionChunks does', async () => {
    const ops = await runtime();
    const paused = await ops.generate('/tool send-email {"to":"quorum@example.com","subject":"q","body":"x"}', { threadId: newThreadId(), resourceId: user.id });
    expect(paused.finishReason).toBe('suspended');
    // Two reviewers must approve (as a data policy's quorum rule would have said).
    await db.pendingToolCall.updateMany({ where: { rootRunId: paused.runId, kind: 'approval' }, data: { quorum: 2, approvers: 'reviewer' } });
    const toolCallId = paused.suspendedToolCalls[0].toolCallId;
    const [rita, sam] = [{ id: 'reviewer-rita', role: 'reviewer' as const }, { id: 'reviewer-sam', role: 'reviewer' as const }];
    for await (const chunk of (await ops.approveToolCall({ runId: paused.runId, toolCallId, actor: rita })).fullStream) void chunk;
    const published: AgentChunk[] = [];
    for await (const chunk of (await ops.approveToolCall({ runId: paused.runId, toolCallId, actor: sam })).fullStream) published.push(chunk);
    const resumed = published.find((chunk) => chunk.type === 'tool-call-resumed')!;
    expect(resumed.payload).toMatchObject({ quorum: 2, approvedBy: [rita.id, sam.id], decision: { approved: true, by: sam.id } });
    const row = await db.pendingToolCall.findFirstOrThrow({ where: { rootRunId: paused.runId, kind: 'approval' } });
    const run = await db.run.findUniqueOrThrow({ where: { id: paused.runId } });
    const { toPendingCall } = await import('../../lib/store/rows');
    const decision = (resumed as Extract<AgentChunk, { type: 'tool-call-resumed' }>).payload.decision;
    expect(decisionChunks({ id: run.id, messageId: run.messageId }, toPendingCall({ ...row, status: 'pending' }), decision).top[1]).toEqual(resumed);
  });
});
