import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import type { AgentChunk } from '../../lib/agent/chunks';
import { createTool } from '../../lib/agent/tool';
import { seed } from '../../lib/demo/seed';
import { createDataTools } from '../../lib/demo/tools';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { loadThreadUIMessages } from '../../lib/chat/threads';
import { listInbox } from '../../lib/inbox/queries';
import { toUIChunks } from '../../lib/ui-stream/map';
import { toolPartIdFor } from '../../components/chat/types';
import { collect, databaseUrl, newThreadId, only } from '../support/harness';
import { RecordingModel, RepeatingIdsModel } from '../support/recording-model';

const user = { id: 'user-ada', role: 'user' as const };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** The seed's example as a fresh process would build it: supervisor → data-agent → find-user. */
async function seedExample() {
  await seed(databaseUrl());
  const db = createPrismaClient(databaseUrl());
  closers.push(() => db.$disconnect());
  const store = new PrismaAgentStore(db);
  const models = { supervisor: new RecordingModel(), data: new RecordingModel() };
  const dataAgent = new Agent({ id: 'data-agent', name: 'Data agent', instructions: 'd', model: models.data, tools: createDataTools(db), store });
  const supervisor = new Agent({
    id: 'supervisor',
    name: 'Supervisor',
    instructions: 's',
    model: models.supervisor,
    tools: [],
    agents: { 'data-agent': dataAgent },
    store,
  });
  return { db, store, supervisor, models };
}

/** Three levels: top → a → b, where b's `lookup` needs approval and `ask` suspends. Executions counted. */
async function threeLevels() {
  const db = createPrismaClient(databaseUrl());
  closers.push(() => db.$disconnect());
  const store = new PrismaAgentStore(db);
  const executions: unknown[] = [];
  const models = { top: new RecordingModel(), a: new RecordingModel(), b: new RecordingModel() };
  const b = new Agent({
    id: 'agent-b',
    name: 'B',
    instructions: 'b',
    model: models.b,
    store,
    tools: [
      createTool({
        id: 'find-user',
        description: 'gated look-up',
        inputSchema: z.object({ userId: z.string() }),
        requireApproval: true,
        execute: ({ userId }) => {
          executions.push(userId);
          return { message: `user ${userId} is Grace` };
        },
      }),
      createTool({
        id: 'ask-city',
        description: 'asks for a city',
        inputSchema: z.object({}),
        suspendSchema: z.object({ message: z.string() }),
        resumeSchema: z.object({ city: z.string().min(1) }),
        execute: (_input, { agent }) => {
          if (!agent.resumeData) return agent.suspend({ message: 'Which city?' });
          executions.push(agent.resumeData.city);
          return { message: `city is ${agent.resumeData.city}` };
        },
      }),
    ],
  });
  const a = new Agent({ id: 'agent-a', name: 'A', instructions: 'a', model: models.a, tools: [], agents: { b }, store });
  const top = new Agent({ id: 'top', name: 'Top', instructions: 't', model: models.top, tools: [], agents: { a }, store });
  return { db, top, models, executions };
}

describe('supervisor delegation', () => {
  it('a sub-agent approval surfaces at the top under its own qualified id (delegation id ~ its id) with the leaf tool, its args and the chain; approving on the top run runs find-user once', async () => {
    const { db, supervisor, models } = await seedExample();
    const started = await supervisor.stream('find user 12345', { threadId: newThreadId(), resourceId: user.id });
    const chunks = await collect(started.fullStream);
    const [delegation] = only(chunks, 'tool-call');
    expect(delegation.payload.toolName).toBe('agent-data-agent');
    const [approval] = only(chunks, 'tool-call-approval');
    expect(approval.runId).toBe(started.runId);
    const leafId = approval.payload.leafToolCallId!;
    expect(leafId).toMatch(/^call_/);
    const qualifiedId = `${delegation.payload.toolCallId}~${leafId}`;
    expect(approval.payload).toMatchObject({
      toolCallId: qualifiedId,
      toolName: 'find-user',
      args: { userId: '12345' },
      chain: ['supervisor', 'data-agent', 'find-user'],
    });
    expect(await started.finishReason).toBe('suspended');

    const listed = await supervisor.listSuspendedRuns({ threadId: (await db.run.findUniqueOrThrow({ where: { id: started.runId } })).threadId });
    expect(listed.runs[0].toolCalls).toEqual([expect.objectContaining({ toolCallId: qualifiedId, toolName: 'find-user', requiresApproval: true })]);

    const approved = await supervisor.approveToolCall({ runId: started.runId, toolCallId: approval.payload.toolCallId, actor: user });
    const after = await collect(approved.fullStream);
    expect(only(after, 'tool-call-resumed')).toHaveLength(1);
    expect(only(after, 'tool-call-resumed')[0].payload).toMatchObject({ toolCallId: qualifiedId, leafToolCallId: leafId, toolName: 'find-user' });
    const result = only(after, 'tool-result');
    expect(result.map((chunk) => chunk.payload.toolName)).toEqual(['agent-data-agent']);
    expect(await approved.text).toContain('Ada Lovelace');
    expect(await approved.finishReason).toBe('stop');
    // Each model ran once before and once after the decision: nothing restarted.
    expect(models.data.prompts).toHaveLength(2);
    expect(models.supervisor.prompts).toHaveLength(2);
    const runs = await db.run.findMany({ where: { OR: [{ id: started.runId }, { parentRunId: started.runId }] } });
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed']);
  });

  it('three levels: the request surfaces at the top, the decision reaches the leaf, and no level restarts', async () => {
    const { top, models, executions } = await threeLevels();
    const paused = await top.generate('find user 7', { threadId: newThreadId(), resourceId: user.id });
    expect(paused.finishReason).toBe('suspended');
    expect(paused.suspendedToolCalls).toEqual([
      expect.objectContaining({ toolName: 'find-user', args: { userId: '7' }, requiresApproval: true, chain: ['top', 'agent-a', 'agent-b', 'find-user'] }),
    ]);
    const done = await top.approveToolCallGenerate({ runId: paused.runId, toolCallId: paused.suspendedToolCalls[0].toolCallId, actor: user });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toContain('user 7 is Grace');
    expect(executions).toEqual(['7']);
    expect([models.top.prompts.length, models.a.prompts.length, models.b.prompts.length]).toEqual([2, 2, 2]);
  });

  it("a sub-agent tool's suspend() surfaces as tool-call-suspended; resume data on the top run reaches it, validated", async () => {
    const { top, executions } = await threeLevels();
    const paused = await top.generate('/tool agent-a {"prompt":"/tool agent-b {\\"prompt\\":\\"/tool ask-city {}\\"}"}', {
      threadId: newThreadId(),
      resourceId: user.id,
    });
    expect(paused.suspendedToolCalls).toEqual([
      expect.objectContaining({ toolName: 'ask-city', requiresApproval: false, suspendPayload: { message: 'Which city?' } }),
    ]);
    const target = { runId: paused.runId, toolCallId: paused.suspendedToolCalls[0].toolCallId, actor: user };
    await expect(top.resumeStream({ city: '' }, target)).rejects.toMatchObject({ code: 'INVALID_RESUME_DATA' });
    const done = await top.resumeGenerate({ city: 'Oslo' }, target);
    expect(done.text).toContain('city is Oslo');
    expect(executions).toEqual(['Oslo']);
  });

  it('two parallel delegations needing approval are pending together and can be decided in either order, across a restart', async () => {
    const first = await seedExample();
    const threadId = newThreadId();
    const paused = await first.supervisor.generate(
      '/tool agent-data-agent {"prompt":"find user cus-1"}\n/tool agent-data-agent {"prompt":"find user cus-2"}',
      { threadId, resourceId: user.id },
    );
    expect(paused.suspendedToolCalls.map((call) => call.args)).toEqual([{ userId: 'cus-1' }, { userId: 'cus-2' }]);
    const [one, two] = paused.suspendedToolCalls;
    expect(one.toolCallId).not.toBe(two.toolCallId);
    const partial = await first.supervisor.approveToolCallGenerate({ runId: paused.runId, toolCallId: two.toolCallId, actor: user });
    expect(partial.finishReason).toBe('suspended');
    await first.db.$disconnect();

    // "Restart": new client, store and agent objects; only PostgreSQL carries the state over.
    const second = await seedExample();
    const done = await second.supervisor.approveToolCallGenerate({ runId: paused.runId, toolCallId: one.toolCallId, actor: user });
    expect(done.finishReason).toBe('stop');
    expect(done.text).toContain('Grace Hopper');
    expect(done.text).toContain('Alan Turing');
    // Two decisions, each on its own child run's find-user call.
    const decisions = await second.db.decision.findMany({ where: { pendingCall: { rootRunId: paused.runId } } });
    expect(decisions).toHaveLength(2);
    expect(new Set(decisions.map((decision) => decision.runId)).size).toBe(2);
    expect(await second.db.pendingToolCall.count({ where: { rootRunId: paused.runId, status: 'pending' } })).toBe(0);
  });

  it("the delegation's id, or the sub-agent call's own id, still addresses the one call waiting below it", async () => {
    const { supervisor } = await seedExample();
    for (const by of ['delegation', 'leaf'] as const) {
      const started = await supervisor.stream('find user 12345', { threadId: newThreadId(), resourceId: user.id });
      const chunks = await collect(started.fullStream);
      const [delegation] = only(chunks, 'tool-call');
      const [approval] = only(chunks, 'tool-call-approval');
      const toolCallId = by === 'delegation' ? delegation.payload.toolCallId : approval.payload.leafToolCallId!;
      const done = await supervisor.approveToolCallGenerate({ runId: started.runId, toolCallId, actor: user });
      expect(done.finishReason, by).toBe('stop');
      expect(done.text, by).toContain('Ada Lovelace');
    }
  });

  it('generate() keeps a sub-agent approval an approval', async () => {
    const { supervisor } = await seedExample();
    const result = await supervisor.generate('find user 12345', { threadId: newThreadId(), resourceId: user.id });
    expect(result.finishReason).toBe('suspended');
    expect(result.suspendedToolCalls[0].requiresApproval).toBe(true);
    expect(result.suspendPayload).toMatchObject({ toolName: 'find-user', args: { userId: '12345' } });
  });

  it("a decline with a reason at the top reaches the sub-agent's model and the supervisor's answer reflects it", async () => {
    const { supervisor, models } = await seedExample();
    const paused = await supervisor.generate('find user 12345', { threadId: newThreadId(), resourceId: user.id });
    const done = await supervisor.declineToolCallGenerate({ runId: paused.runId, actor: user, reason: 'privacy: no look-ups today' });
    expect(models.data.toolResultsSeen().at(-1)!.output).toEqual({ type: 'text', value: 'A person declined this tool call, so it was NOT executed. Their reason: privacy: no look-ups today' });
    expect(done.text).toContain('privacy: no look-ups today');
  });
});

/** A `/tool` line of the scripted model's grammar. */
const toolLine = (name: string, args: object) => `/tool ${name} ${JSON.stringify(args)}`;

/**
 * Three levels whose models number their call ids per response (`call_0`, `call_1`, … in every run):
 * top → a → b, where b's `find-user` needs approval and `ask-city` suspends (again for "Atlantis").
 */
async function repeatingIdsTree() {
  const db = createPrismaClient(databaseUrl());
  closers.push(() => db.$disconnect());
  const store = new PrismaAgentStore(db);
  const executions: string[] = [];
  const models = { top: new RepeatingIdsModel(), a: new RepeatingIdsModel(), b: new RepeatingIdsModel() };
  const b = new Agent({
    id: 'agent-b',
    name: 'B',
    instructions: 'b',
    model: models.b,
    store,
    tools: [
      createTool({
        id: 'find-user',
        description: 'gated look-up',
        inputSchema: z.object({ userId: z.string() }),
        requireApproval: true,
        execute: ({ userId }) => {
          executions.push(userId);
          return { message: `user ${userId} found` };
        },
      }),
      createTool({
        id: 'ask-city',
        description: 'asks for a city',
        inputSchema: z.object({ forUser: z.string() }),
        suspendSchema: z.object({ message: z.string() }),
        resumeSchema: z.object({ city: z.string().min(1) }),
        execute: (_input, { agent }) => {
          if (!agent.resumeData) return agent.suspend({ message: 'Which city?' });
          if (agent.resumeData.city === 'Atlantis') return agent.suspend({ message: 'A real city, please.' });
          executions.push(agent.resumeData.city);
          return { message: `city is ${agent.resumeData.city}` };
        },
      }),
    ],
  });
  const a = new Agent({ id: 'agent-a', name: 'A', instructions: 'a', model: models.a, tools: [], agents: { b }, store });
  const top = new Agent({ id: 'top', name: 'Top', instructions: 't', model: models.top, tools: [], agents: { a }, store });
  return { db, top, models, executions };
}

describe('every pending call has its own id, at any depth and any number per step', () => {
  beforeAll(() => {
    // The chat and inbox readers use the app's process-wide client.
    process.env.DATABASE_URL = databaseUrl();
  });

  it('two approvals in one sub-agent step: two ids, two cards (also after a reload), two inbox rows, one suspended run; decided in either order through different entrances', async () => {
    const { db, supervisor } = await seedExample();
    const threadId = newThreadId();
    const input = toolLine('agent-data-agent', { prompt: `${toolLine('find-user', { userId: 'cus-1' })}\n${toolLine('find-user', { userId: 'cus-2' })}` });
    // The exact input from the report.
    expect(input).toBe('/tool agent-data-agent {"prompt":"/tool find-user {\\"userId\\":\\"cus-1\\"}\\n/tool find-user {\\"userId\\":\\"cus-2\\"}"}');
    const started = await supervisor.stream(input, { threadId, resourceId: user.id });
    const chunks = await collect(started.fullStream);
    const [delegation] = only(chunks, 'tool-call');
    const approvals = only(chunks, 'tool-call-approval');
    expect(approvals.map((chunk) => chunk.payload.args)).toEqual([{ userId: 'cus-1' }, { userId: 'cus-2' }]);
    const ids = approvals.map((chunk) => chunk.payload.toolCallId);
    expect(new Set(ids).size).toBe(2);
    for (const approval of approvals) {
      expect(approval.payload.toolCallId).toBe(`${delegation.payload.toolCallId}~${approval.payload.leafToolCallId}`);
      expect(approval.payload.chain).toEqual(['supervisor', 'data-agent', 'find-user']);
    }

    // The chat: one card per call, each part id its call's id.
    const parts = chunks.flatMap((chunk) => toUIChunks(chunk, started.runId)).filter((part) => part.type === 'data-tool-call-approval');
    expect(parts.map((part) => ('id' in part ? part.id : undefined))).toEqual(ids);
    const cardsAfterReload = async () => {
      const messages = (await loadThreadUIMessages({ threadId, resourceId: user.id }))!;
      return messages.flatMap((message) => message.parts.filter((part) => part.type === 'data-tool-call-approval'));
    };
    // The top-level log keeps the order the stream had: the message's start before the sub-agent's pauses.
    const logged = (await db.runEvent.findMany({ where: { runId: started.runId }, orderBy: { id: 'asc' } })).map((event) => (event.chunk as { type: string }).type);
    expect(logged).toEqual(chunks.map((chunk) => chunk.type));
    const reloaded = await cardsAfterReload();
    expect(reloaded.map((part) => [part.id, part.data.toolCallId, part.data.resumed])).toEqual([
      [ids[0], ids[0], undefined],
      [ids[1], ids[1], undefined],
    ]);
    // The chat draws both with the delegation's tool part.
    expect(reloaded.map((part) => toolPartIdFor(part.data.toolCallId, [delegation.payload.toolCallId]))).toEqual([delegation.payload.toolCallId, delegation.payload.toolCallId]);

    // The inbox and the suspended-runs listing: one row per call, under its own id.
    const inbox = (await listInbox({ status: 'pending', limit: 100 })).items.filter((item) => item.runId === started.runId);
    expect(inbox.map((item) => item.toolCallId).sort()).toEqual([...ids].sort());
    const listed = await supervisor.listSuspendedRuns({ threadId });
    expect(listed.total).toBe(1);
    expect(listed.runs[0].toolCalls.map((call) => call.toolCallId)).toEqual(ids);

    // The delegation's id alone names both: refused as ambiguous, listing both ids.
    await expect(supervisor.approveToolCall({ runId: started.runId, toolCallId: delegation.payload.toolCallId, actor: user })).rejects.toMatchObject({
      code: 'AMBIGUOUS_TOOL_CALL',
      details: { toolCallIds: ids },
    });

    // The second first, on the run; then the first through the thread (send-tool-approval).
    const partial = await supervisor.approveToolCallGenerate({ runId: started.runId, toolCallId: ids[1], actor: user });
    expect(partial.finishReason).toBe('suspended');
    expect((await cardsAfterReload()).map((part) => part.data.resumed ?? false)).toEqual([false, true]);
    const sent = await supervisor.sendToolApproval({ threadId, resourceId: user.id, toolCallId: ids[0], approved: true, actor: user });
    expect(sent).toMatchObject({ accepted: true, runId: started.runId, toolCallId: ids[0] });
    const done = await summarise(sent.continuation);
    expect(done.finishReason).toBe('stop');
    expect(done.text).toContain('Grace Hopper');
    expect(done.text).toContain('Alan Turing');
    expect((await cardsAfterReload()).map((part) => part.data.resumed ?? false)).toEqual([true, true]);

    // The audit records each decision under its own call.
    const decisions = await db.decision.findMany({ where: { pendingCall: { rootRunId: started.runId } }, include: { pendingCall: true } });
    expect(decisions.map((decision) => decision.pendingCall.rootToolCallId).sort()).toEqual([...ids].sort());
    expect((await db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('completed');
  });

  it('three levels, ids repeated by the model in every run, approvals and suspensions mixed: four distinct ids, stable across a re-suspension, decided in any order', async () => {
    const { db, top, models, executions } = await repeatingIdsTree();
    const threadId = newThreadId();
    const leaf = (userId: string) => `${toolLine('find-user', { userId })}\n${toolLine('ask-city', { forUser: userId })}`;
    const viaA = (userId: string) => toolLine('agent-a', { prompt: toolLine('agent-b', { prompt: leaf(userId) }) });
    const paused = await top.generate(`${viaA('u1')}\n${viaA('u2')}`, { threadId, resourceId: user.id });
    expect(paused.finishReason).toBe('suspended');
    // Every run's model said call_0 / call_1; the path of delegations keeps the four calls apart.
    expect(paused.suspendedToolCalls.map((call) => [call.toolCallId, call.toolName, call.requiresApproval])).toEqual([
      ['call_0~call_0~call_0', 'find-user', true],
      ['call_0~call_0~call_1', 'ask-city', false],
      ['call_1~call_0~call_0', 'find-user', true],
      ['call_1~call_0~call_1', 'ask-city', false],
    ]);
    expect(paused.suspendedToolCalls[0].chain).toEqual(['top', 'agent-a', 'agent-b', 'find-user']);
    const listed = await top.listSuspendedRuns({ threadId });
    expect(listed.runs[0].toolCalls.map((call) => call.toolCallId)).toEqual(paused.suspendedToolCalls.map((call) => call.toolCallId));

    // A leaf's own id is shared by two calls: refused, naming the qualified ids.
    await expect(top.approveToolCall({ runId: paused.runId, toolCallId: 'call_0', actor: user })).rejects.toMatchObject({
      code: 'AMBIGUOUS_TOOL_CALL',
      details: { toolCallIds: ['call_0~call_0~call_0', 'call_0~call_0~call_1', 'call_1~call_0~call_0'] },
    });

    const target = (toolCallId: string) => ({ runId: paused.runId, toolCallId, actor: user });
    // The second question first; it asks again (validation loop) under the same id.
    const again = await collect((await top.resumeStream({ city: 'Atlantis' }, target('call_1~call_0~call_1'))).fullStream);
    expect(only(again, 'tool-call-resumed').map((chunk) => chunk.payload.toolCallId)).toEqual(['call_1~call_0~call_1']);
    expect(only(again, 'tool-call-suspended').map((chunk) => [chunk.payload.toolCallId, chunk.payload.suspendPayload])).toEqual([
      ['call_1~call_0~call_1', { message: 'A real city, please.' }],
    ]);
    expect((await top.listSuspendedRuns({ threadId })).runs[0].toolCalls.map((call) => call.toolCallId)).toEqual([
      'call_0~call_0~call_0',
      'call_0~call_0~call_1',
      'call_1~call_0~call_0',
      'call_1~call_0~call_1',
    ]);
    // Then a decline in the second branch, an approval in the first (through the thread), and both answers.
    expect((await top.declineToolCallGenerate({ ...target('call_1~call_0~call_0'), reason: 'not u2' })).finishReason).toBe('suspended');
    const sent = await top.sendToolApproval({ threadId, resourceId: user.id, toolCallId: 'call_0~call_0~call_0', approved: true, actor: user });
    expect((await summarise(sent.continuation)).finishReason).toBe('suspended');
    expect((await top.resumeGenerate({ city: 'Oslo' }, target('call_1~call_0~call_1'))).finishReason).toBe('suspended');
    const done = await top.resumeGenerate({ city: 'Paris' }, target('call_0~call_0~call_1'));
    expect(done.finishReason).toBe('stop');
    expect(executions).toEqual(['u1', 'Oslo', 'Paris']);
    // Each b ran twice, each a twice, the top twice: nothing restarted.
    expect([models.top.prompts.length, models.a.prompts.length, models.b.prompts.length]).toEqual([2, 4, 4]);
    const decisions = await db.decision.findMany({ where: { pendingCall: { rootRunId: paused.runId } }, include: { pendingCall: true }, orderBy: { createdAt: 'asc' } });
    expect(decisions.map((decision) => [decision.pendingCall.rootToolCallId, decision.kind])).toEqual([
      ['call_1~call_0~call_1', 'resume'],
      ['call_1~call_0~call_0', 'decline'],
      ['call_0~call_0~call_0', 'approval'],
      ['call_1~call_0~call_1', 'resume'],
      ['call_0~call_0~call_1', 'resume'],
    ]);
  });
});

/** Reads a continuation to its end. */
async function summarise(result: { fullStream: ReadableStream<AgentChunk>; finishReason: Promise<string>; text: Promise<string> }) {
  await collect(result.fullStream);
  return { finishReason: await result.finishReason, text: await result.text };
}
