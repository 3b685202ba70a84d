import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { createTool } from '../../lib/agent/tool';
import { seed } from '../../lib/demo/seed';
import type { PrismaClient } from '../../lib/generated/prisma/client';
import { assignCall } from '../../lib/inbox/assignment';
import { waitingForMe } from '../../lib/inbox/count';
import { inboxQuerySchema, listInbox } from '../../lib/inbox/queries';
import { enqueueNotification, registerNotificationHandler } from '../../lib/jobs/queue';
import { createTasks } from '../../lib/jobs/tasks';
import { startJobWorker, type JobWorker } from '../../lib/jobs/worker';
import { ScriptedModel } from '../../lib/models/scripted';
import { REVIEWER_EMAIL_CHANNEL, reviewerEmailHandler } from '../../lib/notify/reviewer-jobs';
import { notifyReviewers } from '../../lib/notify/reviewers';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { databaseUrl, newThreadId } from '../support/harness';
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from '../support/smtp';

/*
 * The inbox's deadlines at work: "For me" by assignment and eligibility, reviewer email as jobs of
 * the queue (queued with the pause, sent by a worker over real SMTP, retried when the mail server
 * fails, once per call and kind), the overdue mail (after INBOX_OVERDUE_AFTER without a deadline;
 * to admins at an escalation; never for a deadline that declines), and escalation restricting who
 * may decide. Deadlines are seconds, set by the tools' own deadline option.
 */

const ada = { id: 'user-ada', role: 'user' as const };
const rita = { id: 'reviewer-rita', role: 'reviewer' as const };
const sam = { id: 'reviewer-sam', role: 'reviewer' as const };
const alex = { id: 'admin-alex', role: 'admin' as const };
const executed: string[] = [];
const OVERDUE_AFTER_MS = 2_500;

const tool = (id: string, deadline?: Parameters<typeof createTool>[0]['deadline']) =>
  createTool({
    id,
    description: 'needs a reviewer',
    inputSchema: z.object({ n: z.string() }),
    requireApproval: true,
    approvers: 'reviewer',
    deadline,
    execute: ({ n }) => {
      executed.push(n);
      return { ok: n };
    },
  });

let db: PrismaClient;
let agent: Agent;
let worker: JobWorker | undefined;
let smtp: SmtpReceiver;
let smtpPort: number;
let received: ReceivedMail[] = [];
const saved = { SMTP_URL: process.env.SMTP_URL, APP_URL: process.env.APP_URL, DATABASE_URL: process.env.DATABASE_URL };

beforeAll(async () => {
  db = createPrismaClient(databaseUrl(), { maxConnections: 6 });
  await seed(databaseUrl());
  agent = new Agent({
    id: 'sla-agent',
    name: 'SLA agent',
    instructions: 'sla',
    model: new ScriptedModel(),
    tools: [tool('sla-plain'), tool('sla-escalate', { afterMs: 1_500, action: 'escalate' }), tool('sla-decline', { afterMs: 1_000, action: 'decline' })],
    store: new PrismaAgentStore(db),
  });
  smtp = await startSmtpReceiver();
  smtpPort = smtp.port;
  received = smtp.received;
  process.env.SMTP_URL = `smtp://127.0.0.1:${smtpPort}`;
  process.env.APP_URL = 'https://sla.example';
  // The assignment route's function uses the app's process-wide client.
  process.env.DATABASE_URL = databaseUrl();
  // The app's handler, on this database, with a short overdue span.
  registerNotificationHandler(REVIEWER_EMAIL_CHANNEL, reviewerEmailHandler({ db, tool: () => undefined, overdueAfterMs: () => OVERDUE_AFTER_MS }));
});

afterAll(async () => {
  await worker?.stop();
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await smtp.close();
  await db.$disconnect();
});

async function startWorker() {
  worker ??= await startJobWorker({
    databaseUrl: databaseUrl(),
    concurrency: 4,
    tasks: createTasks({ db, store: new PrismaAgentStore(db), agent: (id) => (id === agent.id ? agent : undefined) }),
  });
}

/** Ada (or `as`) asks for `toolName`; returns the waiting call's row. */
async function ask(toolName: string, n: string, as: string = ada.id) {
  const run = await agent.generate(`/tool ${toolName} {"n":"${n}"}`, { threadId: newThreadId(), resourceId: as });
  expect(run.finishReason).toBe('suspended');
  return db.pendingToolCall.findFirstOrThrow({ where: { runId: run.runId } });
}

/** The mails about one call (by its deep link), of a kind. */
const mailsAbout = (id: string, subject: RegExp) =>
  received.filter((mail) => mail.text?.includes(`https://sla.example/inbox?call=${encodeURIComponent(id)}`) && subject.test(mail.subject ?? ''));
/**
 * Whom a mail went to: the SMTP envelope's recipients (reviewers are Bcc), after checking that no
 * header of the message names any of them.
 */
const recipients = (mail: ReceivedMail) => {
  const to = [...mail.envelopeTo].sort();
  const headers = mail.headerLines.map((header) => header.line).join('\n');
  for (const address of to) expect(headers).not.toContain(address);
  return to;
};
const jobsWithKey = (key: string) =>
  db.$queryRaw<{ run_at: Date; attempts: number; last_error: string | null }[]>`
    SELECT j.run_at, j.attempts, j.last_error FROM graphile_worker.jobs j WHERE j.key = ${key}`;

/** Brings a queued job forward to now (graphile-worker's own reschedule_jobs): the needs-review job waits 30 s for the fast path. */
async function runNow(key: string) {
  await db.$executeRaw`SELECT graphile_worker.reschedule_jobs(ARRAY(SELECT id FROM graphile_worker.jobs WHERE key = ${key}), run_at => now())`;
}

/** Ids of the "For me" queue of `viewer` among calls of `toolName`. */
async function forMe(viewer: { id: string; role: string }, ids: string[], toolName = 'sla-plain') {
  const page = await listInbox(inboxQuerySchema.parse({ queue: 'mine', toolName, limit: 100 }), db, viewer);
  return page.items.map((item) => item.id).filter((id) => ids.includes(id));
}

describe('For me', () => {
  it('is calls assigned to me plus unassigned calls I may decide: not my own, not assigned to another, not escalated past my role, not a quorum I voted on', async () => {
    const open = await ask('sla-plain', 'open');
    const ritasOwn = await ask('sla-plain', 'ritas-own', rita.id);
    const samsCall = await ask('sla-plain', 'assigned-sam');
    await db.pendingToolCall.update({ where: { id: samsCall.id }, data: { assignedTo: sam.id, assignedAt: new Date() } });
    const escalated = await ask('sla-plain', 'escalated');
    await db.pendingToolCall.update({ where: { id: escalated.id }, data: { assignedToRole: 'admin', escalatedAt: new Date() } });
    const voted = await ask('sla-plain', 'voted');
    await db.pendingToolCall.update({ where: { id: voted.id }, data: { quorum: 2, approvedBy: [rita.id] } });
    const ids = [open, ritasOwn, samsCall, escalated, voted].map((row) => row.id);

    expect((await forMe(rita, ids)).sort()).toEqual([open.id].sort());
    expect((await forMe(sam, ids)).sort()).toEqual([open.id, ritasOwn.id, samsCall.id, voted.id].sort());
    expect((await forMe(alex, ids)).sort()).toEqual([open.id, ritasOwn.id, escalated.id, voted.id].sort());
    // Once Rita claims one, it is hers only.
    await db.pendingToolCall.update({ where: { id: open.id }, data: { assignedTo: rita.id, assignedAt: new Date() } });
    expect(await forMe(rita, ids)).toEqual([open.id]);
    expect(await forMe(sam, ids)).not.toContain(open.id);
    // The badge counts the same queue: Sam's count drops by the call Rita took.
    const before = (await waitingForMe(sam, db)).count;
    await db.pendingToolCall.update({ where: { id: ritasOwn.id }, data: { assignedTo: alex.id, assignedAt: new Date() } });
    expect((await waitingForMe(sam, db)).count).toBe(before - 1);
    await db.pendingToolCall.updateMany({ where: { id: { in: ids } }, data: { status: 'declined' } });
  });
});

describe('reviewer email through the job queue', () => {
  it('the pause itself queues the mail (nothing is sent in the request); a worker started later sends it once to the reviewers over SMTP, and schedules the overdue mail', async () => {
    // This store has no after-pause hook: as if the process died right after the commit.
    const call = await ask('sla-plain', 'queued');
    // Committed with the call, due 30 s later (the pausing server's own attempt goes first).
    const [queued] = await jobsWithKey(`reviewer-email:needs-review:${call.id}`);
    expect(queued.run_at.getTime() - call.createdAt.getTime()).toBeGreaterThanOrEqual(29_000);
    expect(mailsAbout(call.id, /./)).toHaveLength(0);

    await startWorker();
    await runNow(`reviewer-email:needs-review:${call.id}`);
    await expect.poll(() => mailsAbout(call.id, /^Approval needed/).length, { timeout: 15_000 }).toBe(1);
    expect(recipients(mailsAbout(call.id, /^Approval needed/)[0])).toEqual(['rita@example.com', 'sam@example.com']);
    // The worker records the send after the SMTP server took the mail: wait for that write too.
    await expect
      .poll(async () => (await db.notificationDelivery.findUniqueOrThrow({ where: { pendingCallId_kind: { pendingCallId: call.id, kind: 'needs-review' } } })).sentAt, { timeout: 5_000 })
      .not.toBeNull();

    // Once per (call, kind): the same job queued again (another server, a retry) sends nothing more.
    await enqueueNotification(db, { channel: REVIEWER_EMAIL_CHANNEL, payload: { kind: 'needs-review', pendingCallId: call.id } }, { key: `again:${call.id}` });
    await expect.poll(async () => (await jobsWithKey(`again:${call.id}`)).length, { timeout: 10_000 }).toBe(0);

    // Without a deadline it is overdue after INBOX_OVERDUE_AFTER (2.5 s here): one "Overdue" mail to the reviewers.
    await expect.poll(() => mailsAbout(call.id, /^Overdue/).length, { timeout: 15_000 }).toBe(1);
    expect(recipients(mailsAbout(call.id, /^Overdue/)[0])).toEqual(['rita@example.com', 'sam@example.com']);
    expect(mailsAbout(call.id, /^Overdue/)[0].text).toContain('This call is overdue');
    await enqueueNotification(db, { channel: REVIEWER_EMAIL_CHANNEL, payload: { kind: 'overdue', pendingCallId: call.id } }, { key: `again-overdue:${call.id}` });
    await expect.poll(async () => (await jobsWithKey(`again-overdue:${call.id}`)).length, { timeout: 10_000 }).toBe(0);
    expect(mailsAbout(call.id, /^Overdue/)).toHaveLength(1);
    expect(mailsAbout(call.id, /^Approval needed/)).toHaveLength(1);
  });

  it('a failing mail server fails the job, which is retried and then sends the mail once', async () => {
    await startWorker();
    process.env.SMTP_URL = 'smtp://127.0.0.1:9'; // nothing listens there
    try {
      const call = await ask('sla-plain', 'retried');
      await runNow(`reviewer-email:needs-review:${call.id}`);
      await expect
        .poll(async () => (await jobsWithKey(`reviewer-email:needs-review:${call.id}`))[0]?.last_error ?? null, { timeout: 15_000 })
        .toMatch(/ECONNREFUSED|connect/i);
      // The failed attempt released its claim, so the retry can send.
      expect(await db.notificationDelivery.count({ where: { pendingCallId: call.id, kind: 'needs-review' } })).toBe(0);
      process.env.SMTP_URL = `smtp://127.0.0.1:${smtpPort}`;
      await expect.poll(() => mailsAbout(call.id, /^Approval needed/).length, { timeout: 20_000 }).toBe(1);
      await db.pendingToolCall.update({ where: { id: call.id }, data: { status: 'declined' } });
    } finally {
      process.env.SMTP_URL = `smtp://127.0.0.1:${smtpPort}`;
    }
  });

  it('a claim held by another sender is in flight (the job retries); one left unsent for 2 minutes (its sender died) is taken over', async () => {
    const call = await ask('sla-plain', 'claimed');
    await db.notificationDelivery.create({ data: { pendingCallId: call.id, kind: 'needs-review', recipients: ['x@example.com'] } });
    const tool = () => undefined;
    expect(await notifyReviewers({ kind: 'needs-review', pendingCallId: call.id }, { db, tool })).toEqual({ status: 'in-flight' });
    await expect(reviewerEmailHandler({ db, tool })({ kind: 'needs-review', pendingCallId: call.id }, { attempt: 1, maxAttempts: 10, jobId: 'x' })).rejects.toThrow(
      /being sent elsewhere/,
    );
    await db.notificationDelivery.update({
      where: { pendingCallId_kind: { pendingCallId: call.id, kind: 'needs-review' } },
      data: { createdAt: new Date(Date.now() - 3 * 60_000) },
    });
    expect(await notifyReviewers({ kind: 'needs-review', pendingCallId: call.id }, { db, tool })).toMatchObject({ status: 'sent' });
    expect(await notifyReviewers({ kind: 'needs-review', pendingCallId: call.id }, { db, tool })).toEqual({ status: 'duplicate' });
    await expect.poll(() => mailsAbout(call.id, /^Approval needed/).length).toBe(1);
    await db.pendingToolCall.update({ where: { id: call.id }, data: { status: 'declined' } });
  });

  it('a deadline that declines: declined by the system at it (in the audit chain), and no overdue mail is ever scheduled', async () => {
    await startWorker();
    const call = await ask('sla-decline', 'expires');
    await expect.poll(async () => (await db.pendingToolCall.findUniqueOrThrow({ where: { id: call.id } })).status, { timeout: 15_000 }).toBe('declined');
    const decisions = await db.decision.findMany({ where: { pendingCallId: call.id } });
    expect(decisions).toEqual([expect.objectContaining({ kind: 'decline', actorId: 'system', actorRole: 'system' })]);
    expect(decisions[0].chainSeq).not.toBeNull();
    expect(await jobsWithKey(`reviewer-email:overdue:${call.id}`)).toEqual([]);
    expect(await notifyReviewers({ kind: 'overdue', pendingCallId: call.id }, { db, tool: () => undefined })).toEqual({ status: 'not-pending' });
    expect(mailsAbout(call.id, /^Overdue/)).toHaveLength(0);
  });
});

describe('escalation', () => {
  it('at its deadline the call is assigned to admins (a reviewer who had claimed it loses it), the admins get one Overdue mail, only an admin may decide it (403 ESCALATED_TO_ADMINS), the deadline is extended once', async () => {
    await startWorker();
    const call = await ask('sla-escalate', 'esc');
    await db.pendingToolCall.update({ where: { id: call.id }, data: { assignedTo: rita.id, assignedAt: new Date() } });
    await expect.poll(async () => (await db.pendingToolCall.findUniqueOrThrow({ where: { id: call.id } })).escalatedAt, { timeout: 15_000 }).not.toBeNull();
    const row = await db.pendingToolCall.findUniqueOrThrow({ where: { id: call.id }, include: { decisions: true } });
    expect(row).toMatchObject({ status: 'pending', assignedToRole: 'admin', assignedTo: null, deadlineAction: 'decline' });
    expect(row.deadlineAt!.getTime() - row.escalatedAt!.getTime()).toBe(1_500);
    expect(row.decisions.map((decision) => [decision.kind, decision.actorId])).toEqual([['escalation', 'system']]);

    await expect.poll(() => mailsAbout(call.id, /^Overdue/).length, { timeout: 15_000 }).toBe(1);
    const overdue = mailsAbout(call.id, /^Overdue/)[0];
    expect(recipients(overdue)).toEqual(['alex@example.com']);
    expect(overdue.text).toContain('escalated to admins');

    const target = { runId: call.rootRunId, toolCallId: call.rootToolCallId };
    for (const attempt of [
      () => agent.approveToolCall({ ...target, actor: rita }),
      () => agent.declineToolCall({ ...target, actor: sam, reason: 'no' }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'ESCALATED_TO_ADMINS', status: 403 });
    }
    // Nor can it be handed to a reviewer; an admin can take it.
    await expect(assignCall({ pendingCallId: call.id, assignee: rita.id, actor: alex })).rejects.toMatchObject({ status: 422, code: 'INVALID_ASSIGNEE' });
    expect(await assignCall({ pendingCallId: call.id, assignee: alex.id, actor: alex })).toEqual({ assignedTo: alex.id });
    expect(await forMe(rita, [call.id], 'sla-escalate')).toEqual([]);
    expect(await forMe(alex, [call.id], 'sla-escalate')).toEqual([call.id]);
    expect((await db.pendingToolCall.findUniqueOrThrow({ where: { id: call.id } })).status).toBe('pending');

    const continuation = await agent.approveToolCall({ ...target, actor: alex });
    await continuation.finishReason;
    expect(executed).toContain('esc');
    expect((await db.pendingToolCall.findUniqueOrThrow({ where: { id: call.id } })).decidedBy).toBe(alex.id);
    expect(mailsAbout(call.id, /^Overdue/)).toHaveLength(1);
  });
});
