import { qualifiedCallId } from './call-id';
import { ChunkChannel } from './channel';
import type { AgentChunk, ChunkPayloads } from './chunks';
import { makeChunk, type AgentStreamResult, type RunContext, type Segment } from './context';
import { savedEvents } from './events';
import { GENERIC_RUN_FAILURE, ModelCallError, runErrorMessage, type RunFailure } from './failure';
import { historyOfStoppedRun, toolsThatRan } from './history';
import { storablePreview } from './model-output';
import type { AgentSpec } from './spec';
import { RunStopped, stopSegment } from './stop';
import type { Lineage } from './store';

/**
 * Segments: one `stream()` or one decision's continuation, run in the background, publishing the
 * top-level run's chunks to whoever reads it, holding the run's lease while it works, and ending
 * with the top-level run's `finish` (or its `error`) whatever happens.
 */

/** A segment renews its run's lease this often, in ms … */
export const LEASE_RENEW_MS = 2_000;
/** … for this long, in ms: a run whose lease ran out has lost its process (see recovery.ts). */
export const LEASE_MS = 10_000;

/**
 * Runs `body` in the background as one segment of the top-level run and returns streams over what
 * it publishes. A segment always ends with the top-level run's `finish` chunk.
 *
 * @param spec the agent the segment starts on (the root of its delegation tree)
 * @param top the top-level run and the assistant message it streams into
 */
export function launch(spec: AgentSpec, top: { id: string; messageId: string }, body: (segment: Segment) => Promise<void>): AgentStreamResult {
  const { store } = spec;
  const channel = new ChunkChannel();
  // Stop (stop.ts): heard by NOTIFY at once, or at the next lease renewal, from any server.
  const stopper = new AbortController();
  const stop = () => {
    if (!stopper.signal.aborted) stopper.abort(new RunStopped());
  };
  const segment: Segment = {
    channel,
    signal: stopper.signal,
    topRunId: top.id,
    topMessageId: top.messageId,
    root: spec,
    finished: false,
    surface: async (chunks) => {
      const queued = segment.top ? await savedEvents(segment.top) : [];
      await store.appendEvents({ runId: top.id, chunks: [...queued, ...chunks] });
      for (const chunk of chunks) {
        if (chunk.type === 'finish') segment.finished = true;
        channel.push(chunk);
      }
    },
  };
  const renew = () =>
    store
      .renewLease({ runId: top.id, ms: LEASE_MS })
      .then((lease) => {
        if (lease?.stopRequested) stop();
      })
      .catch((error) => console.error(`[agent ${spec.id}] lease renewal failed for run ${top.id}:`, error));
  const heartbeat = setInterval(renew, LEASE_RENEW_MS);
  let ended = false;
  let unlisten: (() => void) | undefined;
  store.onStopRequested?.(top.id, stop).then(
    (off) => (ended ? off() : (unlisten = off)),
    (error) => console.error(`[agent ${spec.id}] cannot listen for a Stop of run ${top.id} (heard at lease renewal instead):`, error),
  );
  const done = (async () => {
    try {
      // The statement that started the segment (a new run, a claim) took the lease already.
      await body(segment);
      if (!segment.finished) await segment.surface([makeChunk(top.id, 'finish', { finishReason: 'suspended' })]);
    } catch (error) {
      // A stopped run's model call ends in an abort error, or a checkpoint throws RunStopped.
      if (stopper.signal.aborted) await stopSegment(spec, segment);
      else await failSegment(spec, segment, error);
    }
  })().finally(() => {
    ended = true;
    unlisten?.();
    clearInterval(heartbeat);
    channel.close();
  });

  let text = '';
  let finishReason: ChunkPayloads['finish']['finishReason'] = 'other';
  const summary = (async () => {
    for await (const chunk of channel.readable()) {
      if (chunk.type === 'text-delta') text += chunk.payload.text;
      if (chunk.type === 'finish') finishReason = chunk.payload.finishReason;
    }
    await done;
  })();
  return {
    runId: top.id,
    messageId: top.messageId,
    get fullStream() {
      return channel.readable();
    },
    get textStream() {
      return channel.readable().pipeThrough(
        new TransformStream<AgentChunk, string>({
          transform(chunk, controller) {
            if (chunk.type === 'text-delta') controller.enqueue(chunk.payload.text);
          },
        }),
      );
    },
    text: summary.then(() => text),
    finishReason: summary.then(() => finishReason),
  };
}

/**
 * Ends a segment whose work threw: the top-level run is marked failed with an `error` chunk the
 * user can act on (configuration, busy, down — see failure.ts). What the segment already published
 * is written first, so a reload shows the turn and its error; and everything the run did is kept
 * in the thread's memory, with a result for every tool call (historyOfStoppedRun), so the next
 * turn's model knows which actions already happened.
 */
async function failSegment(spec: AgentSpec, segment: Segment, error: unknown) {
  const { store } = spec;
  const runId = segment.topRunId;
  const failure: RunFailure = error instanceof ModelCallError ? error.failure : { code: 'RUN_FAILED', message: GENERIC_RUN_FAILURE };
  console.error(`[agent ${spec.id}] run ${runId} failed (${failure.code}):`, error);
  const ctx = segment.top;
  const published = ctx ? await savedEvents(ctx) : [];
  const state = ctx?.state ?? (await store.loadRun({ runId }).catch(() => null))?.state ?? null;
  const rows = state ? await store.listPendingCalls({ runId }).catch(() => []) : [];
  const newMessages = state ? historyOfStoppedRun(state, rows) : [];
  const chunks = [
    makeChunk(runId, 'error', { message: runErrorMessage(failure, toolsThatRan(newMessages)), code: failure.code }),
    makeChunk(runId, 'finish', { finishReason: 'error' }),
  ];
  for (const chunk of chunks) segment.channel.push(chunk);
  const reason = storablePreview(error instanceof Error ? error.message : String(error), 2_000);
  try {
    await store.finishRun({ runId, status: 'failed', error: reason, events: [...published, ...chunks], newMessages });
  } catch (storeError) {
    // Whatever made the full write fail, the turn and its error must still survive a reload.
    console.error(`[agent ${spec.id}] could not record run ${runId} as failed with its history:`, storeError);
    await store
      .finishRun({ runId, status: 'failed', error: reason, events: [...published, ...chunks], newMessages: [] })
      .catch((lastError) => console.error(`[agent ${spec.id}] could not mark run ${runId} failed:`, lastError));
  }
}

/**
 * Publishes a pause or a decision at the top level. A sub-agent's chunk is re-addressed to the
 * top-level run under the call's qualified id (see call-id.ts); the top-level run's own chunks are
 * already in its log.
 */
export async function surface(ctx: RunContext, chunks: AgentChunk[]) {
  if (ctx.isTop) {
    for (const chunk of chunks) ctx.segment.channel.push(chunk);
    return;
  }
  const delegationCallId = delegationCallIdOf(ctx.state.lineage);
  await ctx.segment.surface(readdress(chunks, ctx.state.lineage.rootRunId, (toolCallId) => qualifiedCallId(delegationCallId, toolCallId)));
}

/**
 * A sub-agent's pause or decision chunks, addressed to the top-level run under each call's qualified
 * id (behaviour §4, call-id.ts); the call's own id stays as `leafToolCallId`.
 * @param qualify the qualified id of a call of the sub-agent's run, from its own id
 */
export function readdress(chunks: AgentChunk[], rootRunId: string, qualify: (toolCallId: string) => string): AgentChunk[] {
  return chunks.map((chunk) => {
    if (chunk.type !== 'tool-call-approval' && chunk.type !== 'tool-call-suspended' && chunk.type !== 'tool-call-resumed') {
      throw new Error(`Only pauses and decisions surface from a sub-agent, not ${chunk.type}`);
    }
    const payload = { ...chunk.payload, toolCallId: qualify(chunk.payload.toolCallId), leafToolCallId: chunk.payload.toolCallId };
    return { ...chunk, runId: rootRunId, payload } as AgentChunk;
  });
}

/**
 * The qualified id of the delegation call that started a run (null at the top level). A state saved
 * before ids were qualified has only the top-level delegation's id, which then stands in.
 */
export function delegationCallIdOf(lineage: Lineage): string | null {
  return lineage.delegationCallId !== undefined ? lineage.delegationCallId : lineage.rootToolCallId;
}
