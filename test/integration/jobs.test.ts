import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import type { AgentChunk } from '../../lib/agent/chunks';
import { createTool } from '../../lib/agent/tool';
import { enqueueNotification, registerNotificationHandler } from '../../lib/jobs/queue';
import { createTasks } from '../../lib/jobs/tasks';
import { startJobWorker, type JobWorker } from '../../lib/jobs/worker';
import { ScriptedModel } from '../../lib/models/scripted';
import { REVIEWER_EMAIL_CHANNEL, reviewerEmailHandler } from '../../lib/notify/reviewer-jobs';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { collect, createRuntime, databaseUrl, newThreadId } from '../support/harness';

/*
 * The job queue (graphile-worker) runs the crash-recovery sweep, deadlines, escalations and
 * notifications. Each "server" here is a process of its own as far as the database can tell: its own
 * pool, store, agents and worker.
 */

const user = { id: 'user-ada', role: 'user' as const };
const reviewer = { id: 'user-rita', role: 'reviewer' as const };
const executions: string[] = [];
const tool = (id: string, deadline: Parameters<typeof createTool>[0]['deadline']) =>
  createTool({
    id,
    description: 'needs approval, with a deadline',
    inputSchema: z.object({ n: z.string() }),
    requireApproval: true,
    approvers: 'reviewer',
    deadline,
    execute: ({ n }) => {
      executions.push(n);
      return { ok: n };
    },
  });
const tools = [
  tool('timed', { afterMs: 60_000, action: 'decline' }),
  tool('timed-escalate', { afterMs: 1_500, action: 'escalate' }),
  tool('timed-custom', { afterMs: 1_000, action: 'decline', reason: 'The change window closed.' }),
];

/** A server of its own: pool, store, agent and (once started) a job worker. */
function server() {
  const db = createPrismaClient(databaseUrl(), { maxConnections: 6 });
  const store = new PrismaAgentStore(db);
  const agent = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'jobs', model: new ScriptedModel(), tools, store });
  let worker: JobWorker | undefined;
  return {
    db,
    store,
    agent,
    start: async () => {
      worker = await startJobWorker({
        databaseUrl: databaseUrl(),
        concurrency: 4,
        tasks: createTasks({ db, store, agent: (id) => (id === agent.id ? agent : undefined) }),
      });
    },
    stop: async () => {
      await worker?.stop();
      await db.$disconnect();
    },
  };
}
const servers = [server(), server()];
// The app's reviewer email handler on this database (the reviewer-only calls below queue their mail;
// without SMTP_URL it goes to the dev mailbox).
registerNotificationHandler(REVIEWER_EMAIL_CHANNEL, reviewerEmailHandler({ db: servers[0].db, tool: () => undefined }));
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all(closers.map((close) => close()));
});

const eventsOf = async (runId: string) =>
  (await servers[0].db.runEvent.findMany({ where: { runId }, orderBy: { id: 'asc' } })).map((event) => event.chunk as unknown as AgentChunk);

describe('job queue', () => {
  it('the workers run the crash-recovery sweep as a job that schedules its next run itself', async () => {
    const rt = await createRuntime();
    closers.push(rt.close);
    const started = await rt.agent.stream('delete record rec-21', { threadId: newThreadId(), resourceId: user.id });
    await collect(started.fullStream);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId } });
    // What a process leaves behind when it dies right after claiming: a claimed row, a stale lease.
    await rt.db.pendingToolCall.update({ where: { id: row.id }, data: { status: 'approved', decidedBy: user.id } });
    await rt.db.run.update({ where: { id: started.runId }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });

    await Promise.all(servers.map((s) => s.start()));
    await expect.poll(async () => (await rt.db.pendingToolCall.findUniqueOrThrow({ where: { id: row.id } })).status, { timeout: 15_000 }).toBe('unknown');
    expect((await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status).toBe('failed');
    // Exactly one queued sweep, due within the next sweep interval (5 s), however many workers run.
    await expect
      .poll(async () => {
        const jobs = await rt.db.$queryRaw<{ run_at: Date; locked: boolean }[]>`
          SELECT run_at, locked_at IS NOT NULL AS locked FROM graphile_worker.jobs WHERE task_identifier = 'recovery-sweep'`;
        return jobs.filter((job) => !job.locked && job.run_at.getTime() > Date.now() - 1_000 && job.run_at.getTime() < Date.now() + 6_000).length;
      })
      .toBe(1);
  });

  it('delivers a notification to the handler of its channel once per key', async () => {
    const delivered: unknown[] = [];
    registerNotificationHandler('test-channel', async (payload) => {
      delivered.push(payload);
    });
    const key = `test:${crypto.randomUUID()}`;
    await enqueueNotification(servers[0].db, { channel: 'test-channel', payload: { n: 1 } }, { key, runAt: new Date(Date.now() + 1_000) });
    await enqueueNotification(servers[1].db, { channel: 'test-channel', payload: { n: 2 } }, { key, runAt: new Date(Date.now() + 1_000) });
    await expect.poll(() => delivered, { timeout: 10_000 }).toEqual([{ n: 2 }]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(delivered).toEqual([{ n: 2 }]);
  });
});

describe('deadlines', () => {
  it('50 calls reaching their deadline at the same moment with two servers and two workers: each is declined once and continues once; racing people lose or win cleanly', async () => {
    const [a, b] = servers;
    const paused = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).agent.generate(`/tool timed {"n":"d${i}"}`, { threadId: newThreadId(), resourceId: user.id })),
    );
    const rows = await a.db.pendingToolCall.findMany({ where: { runId: { in: paused.map((run) => run.runId) } } });
    expect(rows).toHaveLength(50);
    expect(rows.every((row) => row.deadlineAction === 'decline' && row.deadlineAt !== null)).toBe(true);
    // The same deadline for all 50, a moment from now (the trigger re-schedules each call's job).
    await a.db.$executeRaw`UPDATE pending_tool_calls SET deadline_at = now() + interval '1500 milliseconds' WHERE id = ANY(${rows.map((row) => row.id)}::text[])`;
    const deadline = (await a.db.pendingToolCall.findFirstOrThrow({ where: { id: rows[0].id } })).deadlineAt!;
    // Ten people decide at the deadline too, on either server.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline.getTime() - Date.now())));
    const people = await Promise.allSettled(
      paused.slice(0, 10).map((run, i) =>
        (i % 2 ? a : b).agent.approveToolCallGenerate({ runId: run.runId, toolCallId: run.suspendedToolCalls[0].toolCallId, actor: reviewer }),
      ),
    );
    for (const result of people) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'ALREADY_DECIDED' });
    }
    await expect
      .poll(async () => a.db.pendingToolCall.count({ where: { id: { in: rows.map((row) => row.id) }, status: 'pending' } }), { timeout: 20_000 })
      .toBe(0);
    await expect.poll(async () => a.db.run.count({ where: { id: { in: paused.map((run) => run.runId) }, status: { not: 'completed' } } }), { timeout: 20_000 }).toBe(0);

    const byPeople = people.filter((result) => result.status === 'fulfilled').length;
    let declined = 0;
    for (const [i, run] of paused.entries()) {
      const row = await a.db.pendingToolCall.findFirstOrThrow({ where: { runId: run.runId }, include: { decisions: true } });
      // Exactly one decision per call: the deadline's (system) or a person's.
      expect(row.decisions).toHaveLength(1);
      const [decision] = row.decisions;
      const chunks = await eventsOf(run.runId);
      expect(chunks.filter((chunk) => chunk.type === 'tool-call-resumed')).toHaveLength(1);
      expect(chunks.filter((chunk) => chunk.type === 'finish' && chunk.payload.finishReason === 'stop')).toHaveLength(1);
      if (decision.actorId === 'system') {
        declined += 1;
        expect(decision).toMatchObject({ kind: 'decline', approved: false, actorRole: 'system' });
        // Derived from how long it waited (from when it started waiting to the deadline): a few seconds here.
        expect(decision.reason).toMatch(/^No reviewer decided within \d+ seconds, so it was declined automatically\.$/);
        expect(row).toMatchObject({ status: 'declined', decidedBy: 'system', decisionReason: decision.reason });
        const resumed = chunks.find((chunk) => chunk.type === 'tool-call-resumed')!;
        expect(resumed.payload).toMatchObject({ decision: { approved: false, by: 'system', reason: decision.reason } });
        expect(chunks.some((chunk) => chunk.type === 'tool-output-denied')).toBe(true);
        // The model read the reason, as after a person's decline.
        const text = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.payload.text] : [])).join('');
        expect(text).toContain('No reviewer decided within');
        expect(executions).not.toContain(`d${i}`);
      } else {
        expect(i).toBeLessThan(10);
        expect(decision).toMatchObject({ kind: 'approval', actorId: reviewer.id });
        expect(executions.filter((n) => n === `d${i}`)).toHaveLength(1);
      }
    }
    expect(declined + byPeople).toBe(50);
    expect(declined).toBeGreaterThanOrEqual(40);
  });

  it('the deadline claims nothing before its time, nor a call without a deadline', async () => {
    const [a] = servers;
    const timed = await a.agent.generate('/tool timed {"n":"early"}', { threadId: newThreadId(), resourceId: user.id });
    const row = await a.db.pendingToolCall.findFirstOrThrow({ where: { runId: timed.runId } });
    expect(await a.agent.expireDeadline({ runId: timed.runId, pendingCallId: row.id, reason: 'too early' })).toBeNull();
    const rt = await createRuntime();
    closers.push(rt.close);
    const plain = await rt.agent.generate('delete record rec-23', { threadId: newThreadId(), resourceId: user.id });
    const plainRow = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: plain.runId } });
    expect(plainRow.deadlineAt).toBeNull();
    expect(await rt.agent.expireDeadline({ runId: plain.runId, pendingCallId: plainRow.id, reason: 'no deadline' })).toBeNull();
    for (const id of [row.id, plainRow.id]) {
      expect(await a.db.pendingToolCall.findUniqueOrThrow({ where: { id }, include: { decisions: true } })).toMatchObject({ status: 'pending', decisions: [] });
    }
  });

  it('a late decision after the deadline declined the call gets ALREADY_DECIDED naming the system', async () => {
    const run = await servers[0].agent.generate('/tool timed-custom {"n":"late"}', { threadId: newThreadId(), resourceId: user.id });
    const toolCallId = run.suspendedToolCalls[0].toolCallId;
    await expect.poll(async () => (await servers[0].db.pendingToolCall.findFirstOrThrow({ where: { runId: run.runId } })).status, { timeout: 10_000 }).toBe('declined');
    await expect(servers[1].agent.approveToolCall({ runId: run.runId, toolCallId, actor: reviewer })).rejects.toMatchObject({
      code: 'ALREADY_DECIDED',
      details: { decidedBy: 'system', reason: 'The change window closed.' },
    });
    expect(executions).not.toContain('late');
  });

  it('escalates once at the deadline (assigned to admins, deadline extended by the same span), then declines', async () => {
    const run = await servers[1].agent.generate('/tool timed-escalate {"n":"esc"}', { threadId: newThreadId(), resourceId: user.id });
    const first = await servers[0].db.pendingToolCall.findFirstOrThrow({ where: { runId: run.runId } });
    const span = first.deadlineAt!.getTime() - first.createdAt.getTime();
    expect(span).toBe(1_500);
    await expect.poll(async () => (await servers[0].db.pendingToolCall.findUniqueOrThrow({ where: { id: first.id } })).escalatedAt, { timeout: 10_000 }).not.toBeNull();
    const escalated = await servers[0].db.pendingToolCall.findUniqueOrThrow({ where: { id: first.id }, include: { decisions: true } });
    expect(escalated).toMatchObject({ status: 'pending', assignedToRole: 'admin', deadlineAction: 'decline' });
    expect(escalated.deadlineAt!.getTime() - escalated.escalatedAt!.getTime()).toBe(span);
    expect(escalated.decisions).toEqual([
      expect.objectContaining({ kind: 'escalation', approved: null, actorId: 'system', actorRole: 'system', reason: 'No reviewer decided within 2 seconds; escalated to admins.' }),
    ]);
    await expect.poll(async () => (await servers[0].db.pendingToolCall.findUniqueOrThrow({ where: { id: first.id } })).status, { timeout: 10_000 }).toBe('declined');
    const decided = await servers[0].db.pendingToolCall.findUniqueOrThrow({ where: { id: first.id }, include: { decisions: { orderBy: { createdAt: 'asc' } } } });
    expect(decided.decisions.map((decision) => decision.kind)).toEqual(['escalation', 'decline']);
    expect(decided.decisionReason).toMatch(/^No reviewer or admin decided within \d seconds \(escalated to admins/);
    expect(executions).not.toContain('esc');
  });
});

describe('npm run worker', () => {
  it('a worker process of its own (the web servers running no worker) declines a call at its deadline', async () => {
    // Only the separate process works from here on.
    await Promise.all(servers.map((s) => s.stop()));
    const rt = await createRuntime();
    closers.push(rt.close);
    const started = await rt.agent.stream('delete record rec-22', { threadId: newThreadId(), resourceId: user.id });
    await collect(started.fullStream);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { runId: started.runId } });

    const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'scripts/worker.ts'], {
      env: { ...process.env, DATABASE_URL: databaseUrl(), JOBS_CONCURRENCY: '2', NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let output = '';
      child.stdout!.on('data', (data) => (output += data));
      await expect.poll(() => output, { timeout: 20_000 }).toContain('[jobs] worker running');
      await rt.db.$executeRaw`UPDATE pending_tool_calls SET deadline_at = now() + interval '1 second', deadline_action = 'decline' WHERE id = ${row.id}`;
      await expect.poll(async () => (await rt.db.pendingToolCall.findUniqueOrThrow({ where: { id: row.id } })).status, { timeout: 15_000 }).toBe('declined');
      await expect.poll(async () => (await rt.db.run.findUniqueOrThrow({ where: { id: started.runId } })).status, { timeout: 15_000 }).toBe('completed');
      expect(await rt.db.record.count({ where: { id: 'rec-22' } })).toBe(1);
    } finally {
      child.kill('SIGTERM');
    }
    // SIGTERM stops it cleanly.
    expect(await exited).toBe(0);
  });
});
