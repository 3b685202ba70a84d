import { afterAll, expect, it } from 'vitest';
import { Agent } from '../../lib/agent/agent';
import { AgentError } from '../../lib/agent/errors';
import { createOpsTools } from '../../lib/demo/tools';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { databaseUrl } from '../support/harness';

const RUNS = Number(process.env.SOAK_RUNS ?? 500);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 20);
const reviewer = { id: 'reviewer-rita', role: 'reviewer' as const };

/** A worker as a separate server would be: its own connection pool, store and agent objects. */
function worker() {
  // 20 workers × 4 connections stay under PostgreSQL's default limit of 100.
  const db = createPrismaClient(databaseUrl(), { maxConnections: 4 });
  const agent = new Agent({
    id: 'ops-agent',
    name: 'Ops',
    instructions: 'soak',
    model: new ScriptedModel(),
    tools: createOpsTools(db),
    store: new PrismaAgentStore(db),
  });
  return { db, agent };
}

const workers = Array.from({ length: WORKERS }, worker);
afterAll(async () => {
  await Promise.all(workers.map((w) => w.db.$disconnect()));
});

/** Runs `task(i)` for i in [0, count) on all workers at once, each taking the next index. */
async function spread(count: number, task: (w: ReturnType<typeof worker>, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    workers.map(async (w) => {
      while (next < count) await task(w, next++);
    }),
  );
}

it(`${RUNS} runs suspended and decided concurrently by ${WORKERS} workers: no lost decision, no duplicate execution`, async () => {
  const tag = `soak-${Date.now()}`;
  const started = Date.now();
  const runs: { runId: string; toolCallId: string; subject: string }[] = [];
  await spread(RUNS, async (w, i) => {
    const subject = `${tag}-${i}`;
    const result = await w.agent.generate(`/tool send-email {"to":"soak@example.com","subject":"${subject}","body":"x"}`, {
      threadId: `${tag}-thread-${i}`,
      resourceId: `soak-user-${i % 50}`,
    });
    expect(result.finishReason).toBe('suspended');
    runs.push({ runId: result.runId, toolCallId: result.suspendedToolCalls[0].toolCallId, subject });
  });
  const suspendedMs = Date.now() - started;

  // Every run gets two racing decisions from different workers; exactly one may win.
  let accepted = 0;
  let refused = 0;
  await spread(RUNS, async (w, i) => {
    const other = workers[(workers.indexOf(w) + 1) % workers.length];
    const outcomes = await Promise.allSettled(
      [w, other].map((x) => x.agent.approveToolCallGenerate({ runId: runs[i].runId, toolCallId: runs[i].toolCallId, actor: reviewer })),
    );
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') accepted += 1;
      else if (outcome.reason instanceof AgentError && outcome.reason.code === 'ALREADY_DECIDED') refused += 1;
      else throw outcome.reason;
    }
  });
  const totalMs = Date.now() - started;

  const db = workers[0].db;
  const runIds = runs.map((run) => run.runId);
  const [completed, decisions, emails] = await Promise.all([
    db.run.count({ where: { id: { in: runIds }, status: 'completed' } }),
    db.decision.groupBy({ by: ['runId'], where: { runId: { in: runIds } }, _count: true }),
    db.outboxEmail.groupBy({ by: ['subject'], where: { subject: { startsWith: `${tag}-` } }, _count: true }),
  ]);
  const lost = RUNS - decisions.length;
  const duplicateDecisions = decisions.filter((row) => row._count > 1).length;
  const duplicateExecutions = emails.filter((row) => row._count > 1).length;
  console.log(
    `soak: ${RUNS} runs, ${WORKERS} workers — suspended in ${suspendedMs} ms, all decided in ${totalMs} ms; ` +
      `accepted ${accepted}, refused ${refused}; completed ${completed}; lost decisions ${lost}; ` +
      `duplicate decisions ${duplicateDecisions}; executions ${emails.length}, duplicate executions ${duplicateExecutions}`,
  );
  expect(accepted).toBe(RUNS);
  expect(refused).toBe(RUNS);
  expect(lost).toBe(0);
  expect(duplicateDecisions).toBe(0);
  expect(emails).toHaveLength(RUNS);
  expect(duplicateExecutions).toBe(0);
  expect(completed).toBe(RUNS);
});
