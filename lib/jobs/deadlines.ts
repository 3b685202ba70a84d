import type { Agent } from '@/lib/agent/agent';
import { deadlineDeclineReason, escalationReason } from '@/lib/agent/deadline';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { escalatePendingCall, loadDeadlineTarget } from '@/lib/store/deadlines';

/** What acting on one deadline did. */
export type DeadlineOutcome = 'declined' | 'escalated' | 'nothing';

/**
 * Acts on a pending call's deadline (the `call-deadline` job; also the sweep's backstop for
 * overdue ones): declines it through the runtime's claim — the same compare-and-set as a person's
 * decision — and waits for the continuation to end; or escalates it once. Safe to run any number
 * of times, from any number of workers at once: the compare-and-set lets exactly one act, and a
 * call decided, escalated or moved meanwhile is left alone.
 *
 * @param input.agent the app's top-level agent by id (the registry)
 * @returns what was done
 */
export async function actOnDeadline(input: {
  db: PrismaClient;
  agent: (agentId: string) => Agent | undefined;
  pendingCallId: string;
}): Promise<DeadlineOutcome> {
  const row = await loadDeadlineTarget(input.db, input.pendingCallId);
  if (!row || row.status !== 'pending' || !row.deadlineAt || !row.deadlineAction) return 'nothing';
  const waitedMs = row.deadlineAt.getTime() - row.createdAt.getTime();
  if (row.deadlineAction === 'escalate' && !row.escalatedAt) {
    const escalated = await escalatePendingCall(input.db, { pendingCallId: row.id, deadlineAt: row.deadlineAt, reason: escalationReason(waitedMs) });
    return escalated ? 'escalated' : 'nothing';
  }
  const agent = input.agent(row.rootAgentId);
  if (!agent) throw new Error(`No agent ${row.rootAgentId} for the deadline of call ${row.id}`);
  const reason = row.deadlineReason ?? deadlineDeclineReason(waitedMs, row.escalatedAt !== null);
  const continuation = await agent.expireDeadline({ runId: row.rootRunId, pendingCallId: row.id, reason });
  if (!continuation) return 'nothing';
  // The job ends with the continuation, so a worker stopping waits for it (a crash is the lease's).
  await continuation.finishReason;
  return 'declined';
}
