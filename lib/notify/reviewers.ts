import 'server-only';
import { describeRedacted } from '@/lib/agent/describe';
import type { Tool } from '@/lib/agent/tool';
import { describeToolCall, revealBidi, summarizeArgs } from '@/lib/present/describe';
import { env } from '@/lib/env';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { sendMail, type Mail } from './mailer';
import { mailLine } from './mail-text';
import { MASK, redactArgs } from './redact';
import { hidesValues, whyWithoutValues } from './why';

/**
 * Something reviewers should hear about, by pending call: it needs a reviewer (queued with the
 * pause itself), or it became overdue (`reviewer-jobs.ts` says when). Only ids: a queued job carries it
 * as is.
 */
export interface ReviewEvent {
  kind: 'needs-review' | 'overdue';
  pendingCallId: string;
}

export type NotifyOutcome =
  | { status: 'sent'; to: string[]; via: 'smtp' | 'dev-mailbox' }
  /** This (call, kind) was notified already. */
  | { status: 'duplicate' }
  /** Another server or job is sending it right now (its claim is younger than CLAIM_STALE_MS): try later. */
  | { status: 'in-flight' }
  /** The call is unknown or no longer waiting: nothing to say. */
  | { status: 'not-pending' }
  /** `overdue` about a call that is never overdue by mail: its deadline declines it, or its escalation is still ahead. */
  | { status: 'not-overdue' }
  | { status: 'no-recipients' };

interface CallRow {
  id: string;
  status: string;
  kind: string;
  toolName: string;
  args: unknown;
  policy: string;
  /** The policy rule's own reason (its `why`), as the inbox shows it; null when the rule gave none. */
  why: string | null;
  /** The name of the data rule that matched, when one did (an admin's words, never the call's values). */
  ruleName?: string | null;
  /** The code policy that asked, in words (codeText, lib/agent/data-policy.ts), and its reason code; null when none did. */
  codeText?: string | null;
  codeReason?: string | null;
  agentId: string;
  chain: string[];
  requestedBy: string;
  createdAt: Date;
  resourceId: string;
  deadlineAction: string | null;
  escalatedAt: Date | null;
  assignedToRole: string | null;
  requesterName: string | null;
  requesterEmail: string | null;
}

/** A tool of the app's agents, by name (imported lazily: the agents import this module's caller). */
async function appTool(toolName: string): Promise<Tool | undefined> {
  const { allAgents } = await import('@/lib/runs/agents');
  for (const agent of allAgents()) {
    const tool = agent.tools.get(toolName);
    if (tool) return tool;
  }
  return undefined;
}

/**
 * The public base URL for links in mail, without a trailing slash: APP_URL, else BETTER_AUTH_URL,
 * else `http://localhost:<PORT>` (3000 when PORT is unset), the address `npm run dev` serves on, so
 * a local server on another port mails links that reach it.
 */
export function appUrl(): string {
  const { APP_URL, BETTER_AUTH_URL, PORT } = env();
  return (APP_URL ?? BETTER_AUTH_URL ?? `http://localhost:${PORT ?? 3000}`).replace(/\/+$/, '');
}

/**
 * The email about one call: what it does (in the tool's own words when it describes itself), who
 * asked, through which agents, why it waits, and a deep link to it in the inbox. Argument values of
 * fields the tool marks sensitive are masked in the subject and the body (the inbox, behind sign-in,
 * shows them): the tool's `describe` sees the mask in their place, never the value. Names, argument
 * values and reasons never break a line: their control characters and line separators are shown as
 * `⟪U+000A⟫` (mailLine).
 *
 * @param to the recipients: the mail goes to them as Bcc, so none sees the others' addresses
 * @param tool the call's tool (undefined when the app no longer has it: the generic line is used)
 */
export function reviewMail(call: CallRow, kind: ReviewEvent['kind'], to: string[], tool: Tool | undefined): Mail {
  const sensitive = tool?.sensitive;
  const args = redactArgs(call.args, sensitive);
  // Every value from people, tools and the model is one line (mailLine): none can start a line of its own.
  const what = mailLine(describeRedacted(tool, call.args, MASK)?.title ?? describeToolCall(call.toolName, args));
  const requester = mailLine(call.requesterEmail ? `${call.requesterName ?? call.requestedBy} <${call.requesterEmail}>` : call.requestedBy);
  const chain = mailLine(call.chain.length > 0 ? call.chain.join(' › ') : `${call.agentId} › ${call.toolName}`);
  const link = `${appUrl()}/inbox?call=${encodeURIComponent(call.id)}`;
  const escalated = call.escalatedAt !== null;
  const lines = [
    kind === 'overdue'
      ? escalated
        ? `This call is overdue: nobody decided it by its deadline, so it was escalated to admins — only an admin may decide it now.`
        : `This call is overdue: it still waits for a reviewer.`
      : `A call waits for a reviewer.`,
    '',
    `What: ${what}`,
    `Tool: ${mailLine(call.toolName)} (${chain})`,
    `Arguments: ${mailLine(summarizeArgs(args, 500)) || 'none'}`,
    `Asked by: ${requester}`,
    `Asked at: ${call.createdAt.toISOString()} (UTC)`,
    `Why it waits: ${mailLine(whyItWaits(call, hidesValues(sensitive)))}`,
    '',
    `Open it in the inbox: ${link}`,
  ];
  if (sensitive) lines.push('', `Values the tool marks sensitive are hidden here (${MASK}); the inbox shows them.`);
  return { bcc: to, subject: `${kind === 'overdue' ? 'Overdue' : 'Approval needed'}: ${what}`, text: `${lines.join('\n')}\n` };
}

/**
 * The mail's "Why it waits": the inbox's words (the rule's own reason) when they cannot hold a hidden
 * value; for a call with sensitive fields, what asked without its values (whyWithoutValues).
 */
function whyItWaits(call: CallRow, valuesHidden: boolean): string {
  if (call.why && !valuesHidden) return revealBidi(call.why);
  return whyWithoutValues(call);
}

/** A claim to send that is this old and still unsent belongs to a sender that died: another may take it over. */
export const CLAIM_STALE_MS = 120_000;

/**
 * Emails the people who may decide a call, as one message to all of them as Bcc (none sees the
 * others' addresses; `to` in the outcome lists them): for `needs-review`, and for `overdue` of a call without
 * a deadline, every reviewer except the requester (who may not decide it); for `overdue` of a call
 * its deadline escalated, every admin except the requester (only they may decide it now). An
 * `overdue` about a call whose deadline declines it, or whose escalation is still ahead, sends
 * nothing (`not-overdue`). Idempotent per (call, kind): a row in `notification_deliveries` claims
 * the sending, so several servers or a retried job send it once (`duplicate`); while another sender
 * holds the claim the answer is `in-flight` (the job retries later); a claim left unsent for
 * CLAIM_STALE_MS (its sender died mid-send) is taken over. When sending fails the claim is released
 * and the error thrown, so a retry can send it. Runs as the `reviewer-email` job (reviewer-jobs.ts)
 * and, for `needs-review`, right after the pause (afterPause).
 *
 * @param deps.tool how to find the call's tool, for its description and sensitive fields (default: the app's agents)
 * @throws the mail transport's error (claim released)
 */
export async function notifyReviewers(
  event: ReviewEvent,
  deps: { db?: PrismaClient; tool?: (toolName: string) => Promise<Tool | undefined> | Tool | undefined } = {},
): Promise<NotifyOutcome> {
  const db = deps.db ?? prisma();
  const [call] = await db.$queryRaw<CallRow[]>`
    SELECT p.id, p.status, p.kind, p.tool_name AS "toolName", p.args, p.policy, p.policy_evaluation->>'why' AS "why", p.policy_evaluation->'rule'->>'name' AS "ruleName",
      p.policy_evaluation->'code'->>'text' AS "codeText", p.policy_evaluation->'code'->>'reason' AS "codeReason", p.agent_id AS "agentId", p.chain,
      p.requested_by AS "requestedBy", p.created_at AS "createdAt", p.resource_id AS "resourceId", p.deadline_action AS "deadlineAction",
      p.escalated_at AS "escalatedAt", p.assigned_to_role AS "assignedToRole", u.name AS "requesterName", u.email AS "requesterEmail"
    FROM pending_tool_calls p LEFT JOIN users u ON u.id = p.requested_by
    WHERE p.id = ${event.pendingCallId}`;
  if (!call || call.status !== 'pending') return { status: 'not-pending' };
  if (event.kind === 'overdue' && call.escalatedAt === null && call.deadlineAction !== null) return { status: 'not-overdue' };
  const role = event.kind === 'overdue' && call.escalatedAt !== null ? (call.assignedToRole ?? 'admin') : 'reviewer';
  const people = await db.user.findMany({
    // Not to a deactivated account: it may no longer read the inbox, so it must not get calls by email.
    where: { role, NOT: { banned: true }, id: { notIn: [call.requestedBy, call.resourceId] } },
    select: { email: true },
    orderBy: { email: 'asc' },
  });
  const to = people.map((person) => person.email);
  if (to.length === 0) {
    // Nobody active may decide it: the call waits in the inbox, and whoever runs the server should know.
    console.warn(`[notify] no active ${role} other than the requester may decide call ${call.id} (${call.toolName}): no ${event.kind} mail was sent`);
    return { status: 'no-recipients' };
  }

  // The claim: a new row, or one whose sender vanished (claimed CLAIM_STALE_MS ago and never sent).
  const claimed = await db.$executeRaw`
    INSERT INTO notification_deliveries (pending_call_id, kind, recipients) VALUES (${call.id}, ${event.kind}, ${to})
    ON CONFLICT (pending_call_id, kind) DO UPDATE SET created_at = now(), recipients = EXCLUDED.recipients
      WHERE notification_deliveries.sent_at IS NULL
        AND notification_deliveries.created_at < now() - make_interval(secs => ${CLAIM_STALE_MS / 1_000})`;
  if (claimed === 0) {
    const held = await db.notificationDelivery.findUnique({ where: { pendingCallId_kind: { pendingCallId: call.id, kind: event.kind } }, select: { sentAt: true } });
    return held && held.sentAt === null ? { status: 'in-flight' } : { status: 'duplicate' };
  }
  try {
    const tool = await (deps.tool ?? appTool)(call.toolName);
    const sent = await sendMail(reviewMail(call, event.kind, to, tool), db);
    await db.$executeRaw`UPDATE notification_deliveries SET sent_at = now() WHERE pending_call_id = ${call.id} AND kind = ${event.kind}`;
    return { status: 'sent', to, via: sent.via };
  } catch (error) {
    await db.$executeRaw`DELETE FROM notification_deliveries WHERE pending_call_id = ${call.id} AND kind = ${event.kind} AND sent_at IS NULL`;
    throw error;
  }
}

/**
 * The hook the store calls once a pause is committed: each new approval only a reviewer may decide
 * is mailed right away from this process (the fast path; a failure is logged, never thrown into the
 * run). The mail does not depend on it: the same insert queued a `reviewer-email` job, due
 * REVIEW_JOB_DELAY later (see the migration's trigger), which sends it when this attempt did not —
 * the process died, or the mail server failed — and finds it sent (`duplicate`) otherwise.
 */
export function afterPause(calls: readonly { id: string; kind: string; approvers: string }[]): void {
  for (const call of calls) {
    if (call.kind !== 'approval' || call.approvers !== 'reviewer') continue;
    notifyReviewers({ kind: 'needs-review', pendingCallId: call.id }).catch((error: unknown) => {
      console.error(`[notify] email about call ${call.id} failed (its queued job retries):`, error instanceof Error ? error.message : error);
    });
  }
}
