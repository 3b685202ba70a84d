import type { AgentChunk, ChunkPayloads, ChunkType } from './chunks';
import { makeChunk, type RunContext, type Segment } from './context';
import type { RequestApprovalPolicy } from './policy';
import type { AgentSpec } from './spec';
import type { RunRecord, RunState } from './store';

/**
 * A run's chunks on their way to its event log: queued as they are emitted, written in batches,
 * and handed to the store's next state write so they commit with it (save, then publish:
 * behaviour §1).
 */

/** How long emitted chunks may wait before they are written to the event log, in ms. */
export const EVENT_FLUSH_MS = 50;

/** A run's context in `segment`, run by `spec`; the top-level run's becomes `segment.top`. */
export function newRunContext(
  segment: Segment,
  spec: AgentSpec,
  run: RunRecord,
  state: RunState,
  options: { requestPolicy?: RequestApprovalPolicy; abortSignal?: AbortSignal } = {},
): RunContext {
  const ctx: RunContext = {
    segment,
    spec,
    run,
    state,
    isTop: run.parentRunId === null,
    requestPolicy: options.requestPolicy,
    // The caller's signal (e.g. a request's) and the segment's Stop both abort the model call and reach the tools.
    abortSignal: options.abortSignal && segment.signal ? AbortSignal.any([options.abortSignal, segment.signal]) : (options.abortSignal ?? segment.signal),
    unsaved: [],
    lastText: '',
    flushing: Promise.resolve(),
  };
  if (ctx.isTop) segment.top = ctx;
  return ctx;
}

/** Queues a chunk for the run's own log; the top-level run also publishes it at once. */
export function emit<T extends ChunkType>(ctx: RunContext, type: T, payload: ChunkPayloads[T]): AgentChunk {
  const chunk = makeChunk(ctx.run.id, type, payload);
  ctx.unsaved.push(chunk);
  scheduleFlush(ctx);
  if (ctx.isTop) {
    if (chunk.type === 'finish') ctx.segment.finished = true;
    ctx.segment.channel.push(chunk);
  }
  return chunk;
}

function takeUnsaved(ctx: RunContext): AgentChunk[] {
  return coalesceTextDeltas(ctx.unsaved.splice(0));
}

/**
 * Writes what is queued after EVENT_FLUSH_MS, batching a step's deltas into few INSERTs. A write
 * that fails puts its chunks back in front of the queue: the next write (or the failure path)
 * carries them, so published chunks are never dropped from the log.
 */
function scheduleFlush(ctx: RunContext) {
  if (ctx.flushTimer) return;
  ctx.flushTimer = setTimeout(() => {
    ctx.flushTimer = undefined;
    const chunks = takeUnsaved(ctx);
    if (chunks.length === 0) return;
    ctx.flushing = ctx.flushing
      .then(() => ctx.spec.store.appendEvents({ runId: ctx.run.id, chunks }))
      .catch((error) => {
        console.error(`[agent ${ctx.spec.id}] event write failed for run ${ctx.run.id}; kept for the next write:`, error);
        ctx.unsaved.unshift(...chunks);
      });
  }, EVENT_FLUSH_MS);
}

/**
 * Runs a store write that carries the queued chunks (in its own transaction). If it fails, the
 * chunks go back in front of the queue, so a failed write never takes already-published chunks
 * with it; the failure path writes them with the run's error.
 */
export async function withEvents<T>(ctx: RunContext, write: (events: AgentChunk[]) => Promise<T>): Promise<T> {
  const events = await savedEvents(ctx);
  try {
    return await write(events);
  } catch (error) {
    ctx.unsaved.unshift(...events);
    throw error;
  }
}

/** The queued chunks, once earlier writes landed: to write within the caller's transaction, in order. */
export async function savedEvents(ctx: RunContext): Promise<AgentChunk[]> {
  clearTimeout(ctx.flushTimer);
  ctx.flushTimer = undefined;
  await ctx.flushing;
  return takeUnsaved(ctx);
}

/** Merges consecutive text deltas of one text part, so the event log is not one row per token. */
function coalesceTextDeltas(chunks: AgentChunk[]): AgentChunk[] {
  const out: AgentChunk[] = [];
  for (const chunk of chunks) {
    const last = out.at(-1);
    if (chunk.type === 'text-delta' && last?.type === 'text-delta' && last.payload.id === chunk.payload.id) {
      out[out.length - 1] = { ...last, payload: { id: last.payload.id, text: last.payload.text + chunk.payload.text } };
    } else {
      out.push(chunk);
    }
  }
  return out;
}
