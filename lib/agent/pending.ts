import { randomUUID } from 'node:crypto';
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { CALL_ID_SEPARATOR, qualifiedCallId } from './call-id';
import type { AgentChunk, DecisionSummary } from './chunks';
import { makeChunk, type RunContext } from './context';
import { deadlineColumns } from './deadline';
import { AgentError } from './errors';
import { fingerprintToolCall } from './fingerprint';
import { toModelOutput } from './history';
import { delegationCallIdOf, readdress } from './segment';
import type { PolicyEvaluation } from './data-policy';
import type { Actor, Tool } from './tool';
import type { AgentSpec } from './spec';
import type { CallOutcome, NewPendingCall, PendingCall, RunState, StepCall, SuspendedRunsQuery } from './store';

/**
 * Pending calls: the rows a paused call leaves for a person (an approval, a tool's question, a
 * delegation waiting on its child run), the chunks that announce them, and what other turns of the
 * thread read about them while they wait.
 */

/** JSON Schema (string) of an approval decision. Source: behaviour §1 "Stream chunks". */
export const APPROVAL_RESUME_SCHEMA = JSON.stringify(
  z.toJSONSchema(z.object({ approved: z.boolean(), reason: z.string().optional() })),
);

/** The pending row for `call` of the run in `ctx`: an approval it waits for, or the question its tool asked. */
export function pendingRow(
  ctx: RunContext,
  tool: Tool,
  call: StepCall,
  what: { kind: 'approval'; evaluation: PolicyEvaluation } | { kind: 'suspension'; payload: unknown },
): NewPendingCall {
  const base = pendingBase(ctx, tool, call);
  if (what.kind === 'approval') {
    // The stored evaluation says why it waits (code reason, data rule, its values) and who decides;
    // a data rule's deadline takes the place of the tool's own (deadline.ts).
    const { evaluation } = what;
    const policy = evaluation.error !== undefined ? 'policy-error' : (evaluation.code?.reason ?? 'data-policy');
    const deadline = evaluation.deadline
      ? { deadlineAfterMs: evaluation.deadline.minutes * 60_000, deadlineAction: evaluation.deadline.action, deadlineReason: evaluation.deadline.reason ?? null }
      : deadlineColumns(tool);
    return {
      ...base,
      kind: 'approval',
      policy,
      approvers: evaluation.approvers,
      quorum: evaluation.quorum ?? null,
      policyVersion: evaluation.version,
      policyEvaluation: evaluation,
      suspendPayload: null,
      resumeSchema: APPROVAL_RESUME_SCHEMA,
      childRunId: null,
      ...deadline,
    };
  }
  return {
    ...base,
    kind: 'suspension',
    policy: 'suspend',
    suspendPayload: what.payload,
    resumeSchema: JSON.stringify(z.toJSONSchema(tool.resumeSchema ?? z.unknown())),
    childRunId: null,
  };
}

/** The fields every pending row of `call` shares, its fingerprint and qualified id included. */
export function pendingBase(ctx: RunContext, tool: Tool, call: StepCall) {
  const { lineage } = ctx.state;
  return {
    id: randomUUID(),
    runId: ctx.run.id,
    toolCallId: call.toolCallId,
    toolName: tool.id,
    args: call.args,
    fingerprint: fingerprintToolCall({ toolName: tool.id, args: call.args }),
    approvers: tool.approvers,
    quorum: null as number | null,
    policyVersion: null as number | null,
    policyEvaluation: null as PolicyEvaluation | null,
    threadId: ctx.run.threadId,
    resourceId: ctx.run.resourceId,
    requestedBy: ctx.run.requestedBy,
    agentId: ctx.spec.id,
    chain: [...lineage.chain, tool.id],
    rootRunId: lineage.rootRunId,
    rootToolCallId: qualifiedCallId(delegationCallIdOf(lineage), call.toolCallId),
  };
}

/** The chunk that announces a new pending row: `tool-call-approval` or `tool-call-suspended`. */
export function pendingChunk(runId: string, row: NewPendingCall): AgentChunk {
  const base = { toolCallId: row.toolCallId, toolName: row.toolName, args: row.args, chain: row.chain };
  if (row.kind === 'approval') {
    return makeChunk(runId, 'tool-call-approval', {
      ...base,
      resumeSchema: row.resumeSchema,
      fingerprint: row.fingerprint,
      policy: row.policy,
      approvers: row.approvers,
      ...(row.policyEvaluation ? { why: row.policyEvaluation.why, ...(row.policyEvaluation.quorum ? { quorum: row.policyEvaluation.quorum } : {}) } : {}),
    });
  }
  return makeChunk(runId, 'tool-call-suspended', { ...base, suspendPayload: row.suspendPayload, resumeSchema: row.resumeSchema });
}

/**
 * The chunks that publish a decision at the top level: the segment's `start`, then
 * `tool-call-resumed` (a sub-agent's re-addressed to the top-level run under its qualified id).
 * @returns `top` for the top-level run's log; `own` for the row's run's log when that is a sub-agent's
 */
export function decisionChunks(top: { id: string; messageId: string }, row: PendingCall, decision: DecisionSummary): { top: AgentChunk[]; own: AgentChunk | null } {
  const resumed = makeChunk(row.runId, 'tool-call-resumed', {
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    kind: row.kind === 'suspension' ? 'suspension' : 'approval',
    args: row.args,
    ...(row.kind === 'suspension' ? { suspendPayload: row.suspendPayload } : {}),
    resumeSchema: row.resumeSchema,
    fingerprint: row.fingerprint,
    approvers: row.approvers,
    ...(row.policyEvaluation ? { why: row.policyEvaluation.why } : {}),
    chain: row.chain,
    ...(row.quorum ? { quorum: row.quorum, approvedBy: row.approvedBy } : {}),
    decision,
  });
  const start = makeChunk(top.id, 'start', { messageId: top.messageId, threadId: row.threadId });
  if (row.runId === top.id) return { top: [start, resumed], own: null };
  return { top: [start, ...readdress([resumed], row.rootRunId, () => row.rootToolCallId)], own: resumed };
}

/**
 * Four-eyes: a reviewer-only call may be decided only by a reviewer or admin who is neither the
 * run's requester (the identity that started it) nor the resource it runs for. The store's claim
 * applies the same rule in SQL. Source: behaviour §2 "Who decides".
 * @throws AgentError FOUR_EYES
 */
export function authorize(row: PendingCall, actor: Actor) {
  authorizeEscalated(row, actor);
  if (row.approvers !== 'reviewer') return;
  if (actor.role === 'user' || actor.id === row.requestedBy || actor.id === row.resourceId) {
    throw new AgentError('FOUR_EYES', 'This action needs a reviewer other than the person who asked for it.');
  }
}

/**
 * Escalation: once a deadline escalated a call to a role (`assignedToRole`, admins), only people of
 * that role may approve or decline it — not the reviewers or the requester who could before. The
 * store's claim and quorum vote apply the same rule in SQL. A requester's withdrawal stays possible.
 * Source: behaviour "Deadlines and escalation".
 * @throws AgentError ESCALATED_TO_ADMINS (403)
 */
export function authorizeEscalated(row: Pick<PendingCall, 'assignedToRole'>, actor: Actor) {
  if (row.assignedToRole && actor.role !== row.assignedToRole) {
    throw new AgentError('ESCALATED_TO_ADMINS', 'This call was escalated to admins at its deadline; only an admin can decide it now.', {
      assignedToRole: row.assignedToRole,
    });
  }
}

/**
 * The refusal of a decision on a call someone already decided, naming the winner.
 * @returns AgentError ALREADY_DECIDED, details `{ outcome, status, decidedBy, decidedAt, reason }`
 */
export function alreadyDecided(row: PendingCall): AgentError {
  const outcome = row.status === 'declined' ? 'declined' : row.kind === 'suspension' ? 'answered' : 'approved';
  return new AgentError('ALREADY_DECIDED', `This call was already ${outcome}.`, {
    outcome,
    status: row.status,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    reason: row.decisionReason,
  });
}

/**
 * The thread's top-level runs that wait on a person, as model messages for a new turn (behaviour
 * §5a): each run's own messages so far, then a tool message for its current step where each call
 * reads its result or — while it (or a sub-agent call below it) waits — a `pending` result naming
 * the waiting calls by id. The waiting run stores its real messages itself when it finishes.
 *
 * @param waiting the runs with their state, oldest first
 * @param open the thread's pending rows
 */
export function waitingTurns(waiting: { runId: string; state: RunState }[], open: PendingCall[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const { runId, state } of waiting) {
    if (state.stepCalls.length === 0) continue;
    out.push(...state.messages.slice(state.historyLength));
    const below = open.filter((row) => row.rootRunId === runId);
    out.push({
      role: 'tool',
      content: state.stepCalls.map((call) => ({
        type: 'tool-result' as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: call.outcome ? toModelOutput(call.outcome) : pendingOutput(call, below),
      })),
    });
  }
  return out;
}

/**
 * What a later turn's model reads for a call of a waiting run that has no result yet: the calls
 * waiting on a person through it (itself, or below it for a delegation), by the id a person decides
 * them by; or, when none waits any more, that its result is not known yet.
 */
function pendingOutput(call: StepCall, open: PendingCall[]) {
  const below = `${call.toolCallId}${CALL_ID_SEPARATOR}`;
  const waiting = open.filter((row) => row.rootToolCallId === call.toolCallId || row.rootToolCallId.startsWith(below));
  if (waiting.length === 0) {
    return { type: 'json' as const, value: { status: 'decided', message: `${call.toolName} was decided and is still running; its result is not known yet.` } };
  }
  const calls = waiting.map((row) => ({ toolCallId: row.rootToolCallId, toolName: row.toolName, args: row.args, waitingFor: waitingFor(row) }));
  const message = calls.map((c) => `${c.toolName} is waiting for ${c.waitingFor} (pending call ${c.toolCallId}); it has not run yet.`).join(' ');
  return { type: 'json' as const, value: { status: 'pending', waiting: calls, message } as never };
}

/**
 * The result a call gets when an identical call (same tool, same canonical args: same fingerprint)
 * already waits on the thread: nothing runs and no second pending call opens.
 */
export function alreadyPending(twin: NewPendingCall): CallOutcome {
  return {
    type: 'result',
    output: {
      status: 'already-pending',
      toolCallId: twin.rootToolCallId,
      runId: twin.rootRunId,
      message: `The same ${twin.toolName} call is already waiting for ${waitingFor(twin)} (pending call ${twin.rootToolCallId}); it was not asked again.`,
    },
  };
}

/** What a waiting call waits for, in words the model can repeat. */
function waitingFor(row: Pick<NewPendingCall, 'kind' | 'approvers'>): string {
  if (row.kind === 'suspension') return 'an answer';
  return row.approvers === 'reviewer' ? 'approval by a reviewer' : 'approval';
}

/** One suspended run as `listSuspendedRuns` returns it. Source: behaviour §1. */
export interface SuspendedRun {
  runId: string;
  status: 'suspended';
  threadId: string;
  resourceId: string;
  suspendedAt: string;
  toolCalls: {
    toolCallId: string;
    toolName: string;
    args: unknown;
    requiresApproval: boolean;
    suspendPayload?: unknown;
    chain: string[];
  }[];
}

/**
 * The agent's top-level runs that wait on a person, newest first, read from the pending-call
 * table (calls raised by sub-agents included, each under its own qualified id). Paginated only
 * when both `page` (from 0) and `perPage` are given. Page and `total` come from one snapshot: once
 * a decision is accepted, its call is listed nowhere, and `total` equals what paging yields.
 *
 * @param query.fromDate / query.toDate bounds on when the run's newest waiting call was raised
 * @returns `{ runs, total }` where total counts all matching runs
 */
export async function listSuspendedRuns(spec: AgentSpec, query: Omit<SuspendedRunsQuery, 'agentId'> = {}): Promise<{ runs: SuspendedRun[]; total: number }> {
  const { runs, total } = await spec.store.listSuspendedRuns({ ...query, agentId: spec.id });
  return {
    total,
    runs: runs.map(({ runId, threadId, resourceId, suspendedAt, calls }) => ({
      runId,
      status: 'suspended' as const,
      threadId,
      resourceId,
      suspendedAt: suspendedAt.toISOString(),
      toolCalls: calls.map((call) => ({
        toolCallId: call.rootToolCallId,
        toolName: call.toolName,
        args: call.args,
        requiresApproval: call.kind === 'approval',
        ...(call.kind === 'suspension' ? { suspendPayload: call.suspendPayload } : {}),
        chain: call.chain,
      })),
    })),
  };
}
