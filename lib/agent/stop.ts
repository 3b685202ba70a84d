import { makeChunk, type RunContext, type Segment } from './context';
import { savedEvents } from './events';
import { historyOfStoppedRun } from './history';
import type { AgentSpec } from './spec';

/**
 * Stop (behaviour §5b): someone pressed Stop on a thread's running turn. The store marks the run
 * and announces it (NOTIFY); the segment holding the run's lease hears it (at once by NOTIFY, at
 * the latest at its next lease renewal) and aborts its signal. The model call in flight is aborted
 * through the AI SDK's abort signal; a tool that has started is left to finish; no call that has
 * not started runs; the run ends `cancelled` with a `RUN_STOPPED` notice.
 */

/** What a second message on a thread whose turn is still running is refused with (409 RUN_IN_PROGRESS). */
export const RUN_IN_PROGRESS_MESSAGE = 'The agent is still working on this chat. Wait for it to finish, or press Stop, then send your message.';

/** What the user reads where a stopped turn ends. */
export const RUN_STOPPED_MESSAGE = 'Stopped.';

/** What the model (and the chat) reads for a call of the stopped step that had not started. */
export const NOT_RUN_STOPPED = 'The run was stopped before this call started; it did not run.';

/** The reason a segment's signal is aborted with when its run is stopped. */
export class RunStopped extends Error {
  constructor() {
    super('The run was stopped.');
    this.name = 'RunStopped';
  }
}

/** Whether the run's segment was told to stop. */
export function stopRequested(ctx: RunContext): boolean {
  return ctx.segment.signal?.aborted ?? false;
}

/** Throws RunStopped when the run's segment was told to stop (a checkpoint between model steps and tools). */
export function throwIfStopped(ctx: RunContext) {
  if (stopRequested(ctx)) throw new RunStopped();
}

/**
 * Ends a stopped segment: what it published is written, the top-level run is recorded
 * `cancelled`, and its thread's memory keeps everything the run did, with a result for every call
 * of the step it stopped in (historyOfStoppedRun: a call that ran has its outcome, one that never
 * started says so, one that may have run is "outcome unknown"), so the next turn's model knows.
 * The segment ends with an `error` chunk coded RUN_STOPPED (the chat shows "Stopped") and `finish`.
 */
export async function stopSegment(spec: AgentSpec, segment: Segment) {
  const { store } = spec;
  const runId = segment.topRunId;
  const ctx = segment.top;
  const published = ctx ? await savedEvents(ctx) : [];
  const state = ctx?.state ?? (await store.loadRun({ runId }).catch(() => null))?.state ?? null;
  const rows = state ? await store.listPendingCalls({ runId }).catch(() => []) : [];
  const newMessages = state ? historyOfStoppedRun(state, rows) : [];
  const chunks = [
    makeChunk(runId, 'error', { message: RUN_STOPPED_MESSAGE, code: 'RUN_STOPPED' }),
    makeChunk(runId, 'finish', { finishReason: 'other' }),
  ];
  for (const chunk of chunks) segment.channel.push(chunk);
  segment.finished = true;
  try {
    await store.finishRun({ runId, status: 'cancelled', error: 'stopped', events: [...published, ...chunks], newMessages });
  } catch (error) {
    console.error(`[agent ${spec.id}] could not record run ${runId} as stopped with its history:`, error);
    await store
      .finishRun({ runId, status: 'cancelled', error: 'stopped', events: [...published, ...chunks], newMessages: [] })
      .catch((lastError) => console.error(`[agent ${spec.id}] could not mark run ${runId} stopped:`, lastError));
  }
}
