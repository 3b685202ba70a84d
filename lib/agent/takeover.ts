import type { AgentStreamResult } from './context';
import { emit, newRunContext } from './events';
import { resumeStep, runSteps } from './run-loop';
import { LEASE_MS, launch } from './segment';
import type { AgentSpec } from './spec';

/**
 * Takeover: a run whose process died while a model streamed is continued by another process from
 * its last committed state. The step that was streaming is run again from the start; what the dead
 * process had streamed of it is dropped from the event log in the takeover statement, so the chat
 * (live or after a reload) shows the step's text once, as the new run of it produces it. A step
 * whose tools had started is never taken over (RunState.startedCalls): it ends as interrupted, so
 * no tool runs twice.
 */

/**
 * Takes over the top-level run `runId` of `spec` if its process died in a model step, and continues
 * it in a new segment streaming into the same assistant message (readers attach through the event
 * log, from any server).
 *
 * @returns the continuation, or null when the run could not be taken over (another process holds
 *   or took it, a call is claimed, a tool of its step had started: the caller ends it as interrupted)
 */
export async function takeOverRun(spec: AgentSpec, runId: string): Promise<AgentStreamResult | null> {
  const run = await spec.store.takeOverRun({ runId, leaseMs: LEASE_MS });
  if (!run?.state) return null;
  const state = run.state;
  return launch(spec, { id: run.id, messageId: run.messageId }, async (segment) => {
    const ctx = newRunContext(segment, spec, run, state);
    emit(ctx, 'start', { messageId: run.messageId, threadId: run.threadId, takeover: true });
    // A step whose waiting calls were all closed before the crash goes on with their outcomes.
    if (state.stepCalls.length > 0) await resumeStep(ctx, run);
    await runSteps(ctx);
  });
}
