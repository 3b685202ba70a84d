import { afterAll, expect, it } from 'vitest';
import { Agent } from '../../lib/agent/agent';
import { AgentError } from '../../lib/agent/errors';
import { seed } from '../../lib/demo/seed';
import { createOpsTools } from '../../lib/demo/tools';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { databaseUrl, newThreadId } from '../support/harness';

/*
 * "No decision may fail because the machine is busy." A process whose event loop is half taken by
 * other work, 20 paused runs, and two racing decisions on each — 40 at once through a pool of 2
 * connections. When a decision used interactive transactions (BEGIN … JS … COMMIT holding a
 * connection across round-trips), 4 to 17 of these 40 failed with P2028 "Unable to start a
 * transaction in the given time": the queue for a connection grew past Prisma's maxWait. With single
 * statements a busy process is slower, never wrong.
 */
const RUNS = 20;
const reviewer = { id: 'reviewer-rita', role: 'reviewer' as const };
const db = createPrismaClient(databaseUrl(), { maxConnections: 2 });
afterAll(() => db.$disconnect());

/**
 * Blocks this process's event loop for `busyMs` out of every `periodMs`, as a machine whose CPU is
 * taken by other work does to a server: every round-trip's JavaScript half waits its turn.
 */
function burnCpu({ busyMs, periodMs }: { busyMs: number; periodMs: number }) {
  const timer = setInterval(() => {
    const until = Date.now() + busyMs;
    while (Date.now() < until) {
      // spin
    }
  }, periodMs - busyMs);
  return () => clearInterval(timer);
}

it(`${RUNS * 2} concurrent decisions through a pool of 2 connections on a CPU-starved process: each wins or gets a 409, none errors`, async () => {
  await seed(databaseUrl());
  const agent = new Agent({
    id: 'ops-agent',
    name: 'Ops',
    instructions: 'busy',
    model: new ScriptedModel(),
    tools: createOpsTools(db),
    store: new PrismaAgentStore(db),
  });
  const tag = `busy-${Date.now()}`;
  const runIds: string[] = [];
  const stop = burnCpu({ busyMs: 100, periodMs: 200 });
  try {
    const paused = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        agent.generate(`/tool send-email {"to":"busy@example.com","subject":"${tag}-${i}","body":"x"}`, {
          threadId: newThreadId(),
          resourceId: 'user-ada',
        }),
      ),
    );
    expect(paused.map((result) => result.finishReason)).toEqual(Array(RUNS).fill('suspended'));
    runIds.push(...paused.map((result) => result.runId));

    // Two racing decisions per run, all twenty at once.
    const outcomes = await Promise.allSettled(
      paused.flatMap((result) =>
        [0, 1].map(() => agent.approveToolCallGenerate({ runId: result.runId, toolCallId: result.suspendedToolCalls[0].toolCallId, actor: reviewer })),
      ),
    );
    const errors = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' && !(outcome.reason instanceof AgentError && outcome.reason.status === 409) ? [outcome.reason] : [],
    );
    expect(errors).toEqual([]);
    for (let i = 0; i < RUNS; i += 1) {
      const pair = outcomes.slice(i * 2, i * 2 + 2);
      const won = pair.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      expect(won).toHaveLength(1);
      expect(won[0].finishReason).toBe('stop');
      expect(won[0].toolResults[0].result).toMatchObject({ sent: true });
      const lost = pair.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toMatchObject({ code: 'ALREADY_DECIDED', status: 409 });
    }
  } finally {
    stop();
  }
  expect(await db.run.count({ where: { id: { in: runIds }, status: 'completed' } })).toBe(RUNS);
  const emails = await db.outboxEmail.groupBy({ by: ['subject'], where: { subject: { startsWith: `${tag}-` } }, _count: true });
  expect(emails).toHaveLength(RUNS);
  expect(emails.every((row) => row._count === 1)).toBe(true);
}, 120_000);
