import { afterAll, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import type { AgentChunk } from '../../lib/agent/chunks';
import { createTool } from '../../lib/agent/tool';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { databaseUrl, newThreadId } from '../support/harness';

/*
 * Two calls of one step, decided at the same moment by two processes: each closes its own call, and
 * exactly one of them must continue the run (the run's open-call count, decremented under its row
 * lock, says who). Neither may think the other's call is still open, nor may both continue.
 */

const RUNS = 12;
const user = { id: 'user-ada', role: 'user' as const };
const executions: string[] = [];
const gated = createTool({
  id: 'gated',
  description: 'needs approval',
  inputSchema: z.object({ n: z.string() }),
  requireApproval: true,
  execute: ({ n }) => {
    executions.push(n);
    return { ok: n };
  },
});

/** A process of its own: pool, store and agent. */
function server() {
  const db = createPrismaClient(databaseUrl(), { maxConnections: 3 });
  const agent = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'race', model: new ScriptedModel(), tools: [gated], store: new PrismaAgentStore(db) });
  return { db, agent };
}
const servers = [server(), server()];
afterAll(() => Promise.all(servers.map(({ db }) => db.$disconnect())));

it(`${RUNS} runs whose two calls are decided at once by two servers each continue exactly once`, async () => {
  const [a, b] = servers;
  const paused = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      a.agent.generate(`/tool gated {"n":"${i}-x"}\n/tool gated {"n":"${i}-y"}`, { threadId: newThreadId(), resourceId: user.id }),
    ),
  );
  const results = await Promise.all(
    paused.map((run) =>
      Promise.all(
        run.suspendedToolCalls.map((call, i) =>
          (i === 0 ? a : b).agent.approveToolCallGenerate({ runId: run.runId, toolCallId: call.toolCallId, actor: user }),
        ),
      ),
    ),
  );
  for (const [i, pair] of results.entries()) {
    // One decider's segment ends waiting on the other call (or already finds it closed); one finishes the run.
    expect(pair.map((result) => result.finishReason).sort()).toEqual(['stop', 'suspended']);
    const runId = paused[i].runId;
    const events = await a.db.runEvent.findMany({ where: { runId }, orderBy: { id: 'asc' } });
    const chunks = events.map((event) => event.chunk as unknown as AgentChunk);
    expect(chunks.filter((chunk) => chunk.type === 'finish' && chunk.payload.finishReason === 'stop')).toHaveLength(1);
    expect(chunks.filter((chunk) => chunk.type === 'step-start')).toHaveLength(2);
    const run = await a.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({ status: 'completed', openCalls: 0 });
    // The answer quotes both results: the continuer saw both calls closed.
    expect(pair.find((result) => result.finishReason === 'stop')!.text).toContain(`${i}-x`);
    expect(pair.find((result) => result.finishReason === 'stop')!.text).toContain(`${i}-y`);
  }
  expect(executions.sort()).toEqual(paused.flatMap((_, i) => [`${i}-x`, `${i}-y`]).sort());
});
