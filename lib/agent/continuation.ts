import type { DecisionSummary } from './chunks';
import type { Segment, RunContext } from './context';
import { AgentError } from './errors';
import { newRunContext, withEvents } from './events';
import { decisionChunks, pendingChunk, pendingRow } from './pending';
import { execute, resumeStep, runSteps, settle } from './run-loop';
import { surface } from './segment';
import { findSpec, requireTool, type AgentSpec } from './spec';
import type { Claimed, RunRecord, StepCall } from './store';

/**
 * Continuation: what happens once a decision has claimed its call — the tool runs (or its decline
 * is recorded), the row closes, and whoever closed a step's last open call continues the run, and
 * after a sub-agent's run its parents, to the next pause or the end.
 */

/** Text the model receives for a decline without a reason. Source: behaviour §2 "Decline". */
export const DEFAULT_DECLINE_REASON = 'Tool call was not approved by the user';

/** What a decision does once its call is claimed. */
export interface ContinueDecision {
  approved: boolean;
  /** The arguments the tool runs with. */
  args: unknown;
  reason?: string;
  resumeData?: unknown;
  decision: DecisionSummary;
}

/**
 * After a claim: publish the decision, run (or skip) the tool, close the row, and continue the
 * run when this was its step's last open call — then, when the run ends, its parents in turn.
 * Closing the row decides, in the same statement, who continues: exactly one closer per run.
 *
 * @param owner the agent whose call was claimed
 * @param options.saved whether the claim already wrote the decision's chunks to the log
 */
export async function continueAfterClaim(owner: AgentSpec, segment: Segment, claimed: Claimed, decision: ContinueDecision, options: { saved: boolean }) {
  const { call: row, run } = claimed;
  if (!run.state) throw new AgentError('NO_SNAPSHOT_FOUND', `No paused run ${row.runId}.`);
  const ctx = newRunContext(segment, owner, run, run.state);
  const chunks = decisionChunks({ id: segment.topRunId, messageId: segment.topMessageId }, row, decision.decision);
  if (chunks.own) ctx.unsaved.push(chunks.own);
  // Save, then publish, here too: a reload or a crash while the tool runs still shows the decision.
  if (!options.saved) await owner.store.appendEvents({ runId: segment.topRunId, chunks: chunks.top });
  // What the claim saved is what is published, when the claim built the chunks itself.
  for (const chunk of claimed.events ?? chunks.top) segment.channel.push(chunk);

  const call: StepCall = { toolCallId: row.toolCallId, toolName: row.toolName, args: decision.args };
  let next: RunRecord | null;
  if (!decision.approved) {
    settle(ctx, call, { type: 'denied', reason: decision.reason ?? DEFAULT_DECLINE_REASON });
    next = await withEvents(ctx, (events) =>
      owner.store.closePendingCall({ pendingCallId: row.id, runId: run.id, status: 'declined', output: call.outcome!, events }),
    );
  } else {
    const tool = requireTool(owner, row.toolName);
    const result = await execute(ctx, tool, call, {
      resumeData: decision.resumeData,
      suspendPayload: row.kind === 'suspension' ? row.suspendPayload : undefined,
    });
    if ('suspended' in result) {
      // Suspended again (e.g. a validation loop): a new pending suspension replaces this one.
      const again = pendingRow(ctx, tool, call, { kind: 'suspension', payload: result.suspended });
      const chunk = pendingChunk(ctx.run.id, again);
      await withEvents(ctx, (events) =>
        owner.store.closePendingCall({ pendingCallId: row.id, runId: run.id, status: 'superseded', output: null, events: [...events, chunk], newPendingCall: again }),
      );
      await surface(ctx, [chunk]);
      return;
    }
    const outcome = 'outcome' in result ? result.outcome : null;
    // Without an outcome, an approved delegation now waits on its child run (which may even have finished).
    next = await withEvents(ctx, (events) =>
      owner.store.closePendingCall({
        pendingCallId: row.id,
        runId: run.id,
        status: outcome?.type === 'error' ? 'failed' : 'completed',
        output: outcome,
        events,
      }),
    );
  }
  // Other calls of this step still wait; whoever closes the last one continues the run.
  if (!next?.state) return;
  const closed = owner.delegates.has(row.toolName) ? undefined : { ...row, args: call.args, output: call.outcome ?? null };
  await resumeStep(ctx, next, closed);
  await continueRun(ctx);
}

/** Runs a continued run's remaining steps; when a child run completes, its parent continues. */
async function continueRun(ctx: RunContext): Promise<void> {
  const { store } = ctx.spec;
  let current = ctx;
  for (;;) {
    const result = await runSteps(current);
    if (result.status !== 'completed' || current.isTop) return;
    const parent = await store.closeDelegation({ childRunId: current.run.id, status: 'completed', output: { type: 'result', output: { text: result.text } } });
    if (!parent?.state) return;
    const parentAgent = findSpec(current.segment.root, parent.agentId);
    if (!parentAgent) throw new Error(`No agent ${parent.agentId} under ${current.segment.root.id}`);
    const parentCtx = newRunContext(current.segment, parentAgent, parent, parent.state);
    await resumeStep(parentCtx, parent);
    current = parentCtx;
  }
}
