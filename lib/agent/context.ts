import type { ChunkChannel } from './channel';
import type { AgentChunk, ChunkPayloads, ChunkType } from './chunks';
import type { RequestApprovalPolicy } from './policy';
import type { AgentSpec } from './spec';
import type { PendingCall, RunRecord, RunState } from './store';

/**
 * The working shapes the runtime's modules share: a segment (what one `stream()` or decision
 * publishes) and a run's context inside it. Types and one chunk constructor only, so every module
 * can import this file without forming a cycle.
 */

/** What `stream()` and every continuation return. The run proceeds even if nobody reads the streams. */
export interface AgentStreamResult {
  /** The top-level run. */
  runId: string;
  messageId: string;
  /** Every chunk of this segment of the run, from its start (each read replays from the beginning). */
  readonly fullStream: ReadableStream<AgentChunk>;
  readonly textStream: ReadableStream<string>;
  /** All text of this segment, once it ends. */
  text: Promise<string>;
  /** `suspended` when the segment ended waiting on a person. */
  finishReason: Promise<ChunkPayloads['finish']['finishReason']>;
}

/**
 * One segment of work started by `stream()` or a decision: the chunks its caller reads. Only the
 * top-level run's chunks, and pauses surfacing from below, are published; everything a run emits
 * goes to that run's own event log.
 */
export interface Segment {
  channel: ChunkChannel;
  topRunId: string;
  topMessageId: string;
  /** The agent the segment was started on; finds sub-agents by id. */
  root: AgentSpec;
  /** Whether the top-level run published its `finish` in this segment. */
  finished: boolean;
  /** Aborted when someone stops the run (stop.ts): every run context of the segment listens to it. */
  signal?: AbortSignal;
  /** The top-level run's context in this segment, once there is one. */
  top?: RunContext;
  /**
   * Appends chunks to the top-level run's log, then publishes them (save, then publish). The top-level
   * run's own queued chunks are written first, so the log keeps the order readers saw (a sub-agent's
   * pause never lands before the `start` of the message it belongs to).
   */
  surface: (chunks: AgentChunk[]) => Promise<void>;
}

/** One run's working context inside a segment. */
export interface RunContext {
  segment: Segment;
  /** The agent running this run. */
  spec: AgentSpec;
  run: RunRecord;
  state: RunState;
  isTop: boolean;
  requestPolicy?: RequestApprovalPolicy;
  abortSignal?: AbortSignal;
  /** Chunks not yet written to this run's event log. */
  unsaved: AgentChunk[];
  /** Text of the latest model step (a child's answer to its parent). */
  lastText: string;
  /** Pending time-based write of `unsaved` (so tailing readers see text while it streams). */
  flushTimer?: ReturnType<typeof setTimeout>;
  /** The event writes in flight, in order. */
  flushing: Promise<void>;
  /** The thread's waiting calls as read when the run started, for its first step's check for twins. */
  openAtStart?: PendingCall[];
}

/** A chunk of `runId` from the agent. */
export const makeChunk = <T extends ChunkType>(runId: string, type: T, payload: ChunkPayloads[T]) =>
  ({ type, runId, from: 'AGENT', payload }) as AgentChunk;
