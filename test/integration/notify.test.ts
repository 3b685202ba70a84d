import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent } from '../../lib/agent/agent';
import type { NewPendingCall } from '../../lib/agent/store';
import { seed } from '../../lib/demo/seed';
import { createOpsTools } from '../../lib/demo/tools';
import type { PrismaClient } from '../../lib/generated/prisma/client';
import { ScriptedModel } from '../../lib/models/scripted';
import { notifyReviewers, reviewMail } from '../../lib/notify/reviewers';
import type { Tool } from '../../lib/agent/tool';
import { policyText } from '../../lib/present/describe';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { collect, databaseUrl, newThreadId } from '../support/harness';
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from '../support/smtp';

/*
 * Reviewer email, end to end below the HTTP layer: the store's after-pause hook names the new
 * calls, notifyReviewers sends one mail per (call, kind) over real SMTP (smtp-server), to the
 * reviewers as Bcc (none sees the others' addresses), masks the
 * values a tool marks sensitive, releases its claim when the server is down, and keeps mail in the
 * dev mailbox without SMTP_URL.
 */

let db: PrismaClient;
let agent: Agent;
const paused: NewPendingCall[] = [];
let received: ReceivedMail[] = [];
let smtp: SmtpReceiver;
let smtpPort: number;
const saved = { SMTP_URL: process.env.SMTP_URL, APP_URL: process.env.APP_URL };

beforeAll(async () => {
  db = createPrismaClient(databaseUrl());
  await seed(databaseUrl());
  const tools = createOpsTools(db);
  agent = new Agent({
    id: 'ops-agent',
    name: 'Ops agent',
    instructions: 'test',
    model: new ScriptedModel(),
    tools,
    store: new PrismaAgentStore(db, { afterSuspend: (calls) => paused.push(...calls) }),
  });
  smtp = await startSmtpReceiver();
  smtpPort = smtp.port;
  received = smtp.received;
  process.env.APP_URL = 'https://countersign.example';
});

afterAll(async () => {
  process.env.SMTP_URL = saved.SMTP_URL;
  process.env.APP_URL = saved.APP_URL;
  if (saved.SMTP_URL === undefined) delete process.env.SMTP_URL;
  if (saved.APP_URL === undefined) delete process.env.APP_URL;
  await smtp.close();
  await db.$disconnect();
});

const tool = (toolName: string) => createOpsTools(db).find((candidate) => candidate.id === toolName);

/** Ada asks for a refund only a reviewer may approve; returns its pending call id. */
async function refund(amount: number): Promise<string> {
  paused.length = 0;
  const started = await agent.stream(`/tool issue-refund {"orderId":"ord-1042","amount":${amount}}`, { threadId: newThreadId(), resourceId: 'user-ada' });
  await collect(started.fullStream);
  expect(await started.finishReason).toBe('suspended');
  expect(paused.map((call) => [call.toolName, call.approvers])).toEqual([['issue-refund', 'reviewer']]);
  return paused[0].id;
}

describe('reviewer email', () => {
  it('the store names the new calls once the pause is saved; one mail per (call, kind) to the reviewers, sensitive values masked', async () => {
    process.env.SMTP_URL = `smtp://127.0.0.1:${smtpPort}`;
    // A deactivated reviewer gets no mail (the recipients below are exactly Rita and Sam).
    const gone = await db.user.create({ data: { id: `gone-${Date.now()}`, name: 'Gone', email: `gone-${Date.now()}@example.com`, role: 'reviewer', banned: true } });
    const id = await refund(287.45);
    // The hook ran after the row was committed: the call is there to be read.
    expect(await db.pendingToolCall.count({ where: { id, status: 'pending' } })).toBe(1);

    const before = received.length;
    // Several servers (or retries) at once: exactly one sends.
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => notifyReviewers({ kind: 'needs-review', pendingCallId: id }, { db, tool })));
    expect(outcomes.filter((outcome) => outcome.status === 'sent')).toHaveLength(1);
    // The others found it being sent (`in-flight`: a queued job would try again later) or already sent.
    expect(outcomes.filter((outcome) => outcome.status === 'in-flight' || outcome.status === 'duplicate')).toHaveLength(4);
    expect(await notifyReviewers({ kind: 'needs-review', pendingCallId: id }, { db, tool })).toEqual({ status: 'duplicate' });
    await expect.poll(() => received.length).toBe(before + 1);
    const mail = received.at(-1)!;
    // One message, delivered to each reviewer (the envelope's recipients)...
    expect([...mail.envelopeTo].sort()).toEqual(['rita@example.com', 'sam@example.com']);
    // ...as Bcc: no header of the message a reviewer gets names any reviewer, the To is a neutral group.
    const headers = mail.headerLines.map((header) => header.line).join('\n');
    expect(headers).not.toMatch(/rita@|sam@/);
    expect(mail.headers.has('bcc')).toBe(false);
    expect(mail.headerLines.find((header) => header.key === 'to')?.line).toMatch(/^To: "?undisclosed-recipients"?:;$/);
    await db.user.delete({ where: { id: gone.id } });
    // In the tool's own words, with the masked amount in place of the value.
    expect(mail.subject).toBe('Approval needed: Refunds ••• on order ord-1042');
    expect(mail.text).toContain('ord-1042');
    expect(mail.text).toContain('Ada');
    expect(mail.text).toContain(`https://countersign.example/inbox?call=${encodeURIComponent(id)}`);
    // The amount is marked sensitive: not in the subject, not in the body.
    expect(`${mail.subject}\n${mail.text}`).not.toMatch(/287[.,]45|\$287/); // a bare 287 could be the milliseconds of a timestamp
    expect(mail.text).toContain('amount: •••');
    // The code policy that asked, in its words from the stored evaluation, without the amount.
    expect(mail.text).toContain("Why it waits: issue-refund's own approval rule asked for these arguments\n");
    // Why it waits: a policy's own reason may quote the arguments (a data policy's "amount 287.45 >
    // 100"), so for a tool with sensitive fields the mail says what the policy means instead; for
    // other tools it uses the reason, the inbox's words.
    const call = await db.pendingToolCall.findUniqueOrThrow({ where: { id } });
    const quoting = { ...call, why: 'amount 287.45 > 100: a reviewer', requesterName: 'Ada', requesterEmail: 'ada@example.com' };
    const masked = reviewMail(quoting as never, 'needs-review', ['rita@example.com'], tool('issue-refund'));
    expect(masked.text).not.toContain('287.45');
    expect(masked.text).toContain(`Why it waits: ${policyText(call.policy)}\n`);
    // With a data rule and a code policy behind it, the mail names both without their values, as the
    // inbox's reason does with them ("The tool always asks" was untrue of a rule on the amount).
    const code = { codeText: "issue-refund's own approval rule asked for these arguments", codeReason: 'tool' };
    const byRule = reviewMail({ ...quoting, ruleName: 'Large refunds', ...code } as never, 'needs-review', ['rita@example.com'], tool('issue-refund'));
    expect(byRule.text).toContain(
      "Why it waits: the policy rule “Large refunds” (the inbox shows the values it matched); and issue-refund's own approval rule asked for these arguments\n",
    );
    expect(byRule.text).not.toContain('287.45');
    // A failed code policy's words may quote the arguments (its error): not in the mail.
    const failed = reviewMail({ ...quoting, codeText: 'an approval rule in code failed (amount 287.45), so approval is required', codeReason: 'policy-error' } as never, 'needs-review', [], tool('issue-refund'));
    expect(failed.text).toContain(`Why it waits: ${policyText(call.policy)}\n`);
    expect(failed.text).not.toContain('287.45');
    const plain: Tool = { ...tool('issue-refund')!, sensitive: undefined };
    expect(reviewMail(quoting as never, 'needs-review', ['rita@example.com'], plain).text).toContain('Why it waits: amount 287.45 > 100: a reviewer\n');
    const row = await db.notificationDelivery.findUniqueOrThrow({ where: { pendingCallId_kind: { pendingCallId: id, kind: 'needs-review' } } });
    expect(row.sentAt).not.toBeNull();

    // Another kind of the same call is its own notification.
    expect((await notifyReviewers({ kind: 'overdue', pendingCallId: id }, { db, tool })).status).toBe('sent');
    await expect.poll(() => received.at(-1)?.subject).toMatch(/^Overdue/);
  });

  it('a failed send releases the claim (a retry sends it); a decided call is not mailed; without SMTP_URL mail goes to the dev mailbox', async () => {
    const id = await refund(333);
    process.env.SMTP_URL = 'smtp://127.0.0.1:9'; // nothing listens there
    await expect(notifyReviewers({ kind: 'needs-review', pendingCallId: id }, { db, tool })).rejects.toThrow();
    expect(await db.notificationDelivery.count({ where: { pendingCallId: id } })).toBe(0);

    delete process.env.SMTP_URL;
    const kept = await notifyReviewers({ kind: 'needs-review', pendingCallId: id }, { db, tool });
    expect(kept).toMatchObject({ status: 'sent', via: 'dev-mailbox' });
    const [mail] = await db.devMail.findMany({ orderBy: { createdAt: 'desc' }, take: 1 });
    // Kept as it would have been sent: the reviewers in its Bcc list, none in its To.
    expect(mail.bcc.sort()).toEqual(['rita@example.com', 'sam@example.com']);
    expect(mail.to).toEqual([]);
    // The amount is masked; the call's link is left out of the search (a random id may hold "333").
    expect(mail.text).toContain('amount: •••');
    expect(mail.text.replace(/\?call=\S+/g, '')).not.toMatch(/333/);

    await db.pendingToolCall.update({ where: { id }, data: { status: 'declined' } });
    expect((await notifyReviewers({ kind: 'overdue', pendingCallId: id }, { db, tool })).status).toBe('not-pending');
    expect((await notifyReviewers({ kind: 'needs-review', pendingCallId: 'no-such-call' }, { db, tool })).status).toBe('not-pending');
  });

  it('with no active reviewer nothing is mailed, and the server log says so', async () => {
    const id = await refund(444);
    const active = await db.user.findMany({ where: { role: 'reviewer', NOT: { banned: true } }, select: { id: true } });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      await db.user.updateMany({ where: { id: { in: active.map((user) => user.id) } }, data: { banned: true } });
      expect((await notifyReviewers({ kind: 'needs-review', pendingCallId: id }, { db, tool })).status).toBe('no-recipients');
      expect(warn).toHaveBeenCalledWith(expect.stringContaining(`no active reviewer other than the requester may decide call ${id} (issue-refund): no needs-review mail was sent`));
      expect(await db.notificationDelivery.count({ where: { pendingCallId: id } })).toBe(0);
    } finally {
      warn.mockRestore();
      await db.user.updateMany({ where: { id: { in: active.map((user) => user.id) } }, data: { banned: false } });
    }
  });

  it('names, argument values and reasons cannot start lines of their own in the mail (CR, LF, other controls, U+2028/2029)', async () => {
    const id = await refund(555);
    const call = await db.pendingToolCall.findUniqueOrThrow({ where: { id } });
    const forged = 'Open it in the inbox: https://evil.example/phish';
    const row = {
      ...call,
      args: { customerId: `cus-1\r\n${forged}`, note: `a\u2028${forged}\u2029b\u0085c\u000bd` },
      toolName: 'lookup-customer',
      chain: ['ops-agent', `sub\n${forged}`],
      why: `customerId matched\n${forged}`,
      requesterName: `Ada\n${forged}`,
      requesterEmail: 'ada@example.com',
    };
    const mail = reviewMail(row as never, 'needs-review', ['rita@example.com'], undefined);
    const lines = mail.text.split(/\r\n|[\n\r\u2028\u2029\u0085\u000b\u000c]/);
    const starts = ['A call waits', 'What: ', 'Tool: ', 'Arguments: ', 'Asked by: ', 'Asked at: ', 'Why it waits: ', 'Open it in the inbox: https://countersign.example/inbox?call='];
    for (const line of lines) expect(line === '' || starts.some((start) => line.startsWith(start)), JSON.stringify(line)).toBe(true);
    expect(lines.filter((line) => line.startsWith('Open it in the inbox:'))).toHaveLength(1);
    expect(mail.text).toContain('Asked by: Ada⟪U+000A⟫Open it in the inbox: https://evil.example/phish <ada@example.com>');
    expect(mail.text).toContain('⟪U+2028⟫');
    expect(mail.subject).not.toMatch(/[\r\n\u2028\u2029]/);
  });
});
