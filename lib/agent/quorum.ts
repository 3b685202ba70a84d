import { randomUUID } from 'node:crypto';
import type { AgentChunk } from './chunks';
import { makeChunk, type AgentStreamResult } from './context';
import { AgentError } from './errors';
import type { AgentStore, PendingCall } from './store';
import type { Actor } from './tool';

/**
 * Quorum approval: a call whose policy asks for N distinct reviewers stays pending until N eligible
 * reviewers approved it. Each vote but the last is recorded on its own (store `castVote`: a `vote`
 * decision record and an updated approval chunk with the count); the vote that makes N is the
 * ordinary claim, which adds that voter and approves in one statement, only while the call is one
 * vote short, so there is exactly one outcome. One decline ends the call (an ordinary claim); the
 * votes before it stay recorded, and a vote that lost to it leaves nothing behind.
 * Source: behaviour §2 "Who decides".
 */

/** What a vote did. `complete`: the call has its N approvals and this voter claims it now. */
export type VoteOutcome =
  | { outcome: 'counted'; approvals: number; quorum: number; approvedBy: string[]; chunk: AgentChunk }
  | { outcome: 'complete' }
  | { outcome: 'changed' };

/** The approval chunk of a quorum call as the top-level run shows it, with its approvals so far. */
export function voteChunk(row: PendingCall, approvedBy: string[]): AgentChunk {
  return {
    type: 'tool-call-approval',
    runId: row.rootRunId,
    from: 'AGENT',
    payload: {
      toolCallId: row.rootToolCallId,
      ...(row.rootToolCallId !== row.toolCallId ? { leafToolCallId: row.toolCallId } : {}),
      toolName: row.toolName,
      args: row.args,
      resumeSchema: row.resumeSchema,
      fingerprint: row.fingerprint,
      policy: row.policy,
      approvers: row.approvers,
      ...(row.policyEvaluation ? { why: row.policyEvaluation.why } : {}),
      quorum: row.quorum ?? undefined,
      approvals: approvedBy.length,
      approvedBy,
      chain: row.chain,
    },
  };
}

/**
 * Casts `actor`'s approval of the open quorum call `row` (already checked: kind, four-eyes,
 * fingerprint) when it leaves the call short of its quorum. One statement.
 * @returns `counted` (recorded, the call still waits), `complete` (this approval fills the quorum:
 *   the caller claims the call, which records it), or `changed` (the row moved on; read it again)
 * @throws AgentError ALREADY_VOTED (409) when this reviewer approved it before and it still needs others;
 *   ALREADY_DECIDED (409) when other reviewers' votes filled it meanwhile
 */
export async function castQuorumVote(store: AgentStore, row: PendingCall, actor: Actor): Promise<VoteOutcome> {
  const quorum = row.quorum!;
  const voted = await store.castVote({
    pendingCallId: row.id,
    rootRunId: row.rootRunId,
    actor,
    decisionId: randomUUID(),
    event: voteChunk(row, []),
  });
  // castVote takes only a vote that leaves the call short, so a recorded vote is always "counted".
  if (voted) {
    return { outcome: 'counted', approvals: voted.approvals, quorum: voted.quorum, approvedBy: voted.approvedBy, chunk: voteChunk(row, voted.approvedBy) };
  }
  // Nothing recorded: the row as read says why (or it changed since, and the caller reads it again).
  if (row.approvedBy.includes(actor.id)) {
    if (row.approvedBy.length >= quorum) return { outcome: 'complete' };
    throw new AgentError('ALREADY_VOTED', `You already approved this; it needs ${quorum - row.approvedBy.length} more approval(s) from other reviewers.`, {
      approvals: row.approvedBy.length,
      quorum,
      approvedBy: row.approvedBy,
    });
  }
  // One short: this vote would fill it, and only the claim may add it (with the approval).
  if (row.approvedBy.length === quorum - 1) return { outcome: 'complete' };
  if (row.approvedBy.length >= quorum) {
    throw new AgentError('ALREADY_DECIDED', 'This call already has all the approvals it needs.', {
      outcome: 'approved',
      status: 'approved',
      approvedBy: row.approvedBy,
      decidedBy: row.approvedBy.at(-1) ?? null,
      decidedAt: null,
      reason: null,
    });
  }
  return { outcome: 'changed' };
}

/**
 * What an approval that counted as one vote of a quorum returns: a stream with the call's card
 * (now with its count) and `finish: suspended` — the run still waits for the other reviewers.
 */
export function voteResult(runId: string, messageId: string, chunk: AgentChunk): AgentStreamResult {
  const chunks = [chunk, makeChunk(runId, 'finish', { finishReason: 'suspended' })];
  const stream = () =>
    new ReadableStream<AgentChunk>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
  return {
    runId,
    messageId,
    get fullStream() {
      return stream();
    },
    get textStream() {
      return new ReadableStream<string>({ start: (controller) => controller.close() });
    },
    text: Promise.resolve(''),
    finishReason: Promise.resolve('suspended'),
  };
}
