import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { createTool } from '../../lib/agent/tool';
import { seed } from '../../lib/demo/seed';
import { createDataTools } from '../../lib/demo/tools';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { collect, databaseUrl, newThreadId, only } from '../support/harness';
import { RecordingModel } from '../support/recording-model';

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
  it('a sub-agent approval surfaces under the delegation call with the leaf tool, its args and the chain; approving on the top run runs find-user once', async () => {
    const { db, supervisor, models } = await seedExample();
    const started = await supervisor.stream('find user 12345', { threadId: newThreadId(), resourceId: user.id });
    const chunks = await collect(started.fullStream);
    const [delegation] = only(chunks, 'tool-call');
    expect(delegation.payload.toolName).toBe('agent-data-agent');
    const [approval] = only(chunks, 'tool-call-approval');
    expect(approval.runId).toBe(started.runId);
    expect(approval.payload).toMatchObject({
      toolCallId: delegation.payload.toolCallId,
      toolName: 'find-user',
      args: { userId: '12345' },
      chain: ['supervisor', 'data-agent', 'find-user'],
    });
    expect(await started.finishReason).toBe('suspended');

    const listed = await supervisor.listSuspendedRuns({ threadId: (await db.run.findUniqueOrThrow({ where: { id: started.runId } })).threadId });
    expect(listed.runs[0].toolCalls).toEqual([expect.objectContaining({ toolCallId: delegation.payload.toolCallId, toolName: 'find-user', requiresApproval: true })]);

    const approved = await supervisor.approveToolCall({ runId: started.runId, toolCallId: approval.payload.toolCallId, actor: user });
    const after = await collect(approved.fullStream);
    expect(only(after, 'tool-call-resumed')).toHaveLength(1);
    expect(only(after, 'tool-call-resumed')[0].payload).toMatchObject({ toolCallId: delegation.payload.toolCallId, toolName: 'find-user' });
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
    expect(models.data.toolResultsSeen().at(-1)!.output).toEqual({ type: 'text', value: 'privacy: no look-ups today' });
    expect(done.text).toContain('privacy: no look-ups today');
  });
});
