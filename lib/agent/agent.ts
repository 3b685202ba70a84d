import type { LanguageModel, ModelMessage } from 'ai';
import type { AgentStreamResult } from './context';
import { decide, expireDeadline, resumeToolCall, sendToolApproval, type DecisionInput } from './decisions';
import { summariseChunks, type GenerateResult } from './generate';
import { listSuspendedRuns, type SuspendedRun } from './pending';
import { buildAgentSpec, findSpec, type AgentDefaultOptions, type AgentHooks, type AgentSpec } from './spec';
import { startStream, type StreamOptions } from './start';
import { takeOverRun } from './takeover';
import type { AgentStore, SuspendedRunsQuery } from './store';
import type { Actor, Tool } from './tool';

/**
 * The runtime's public entry point. `Agent` is a facade: it builds an agent spec (spec.ts) and
 * hands it to the modules that do the work —
 *
 * - start.ts: `stream()` — input checks, the statement that creates a run, the first segment;
 * - run-loop.ts (with model-step.ts): model step, validation, approval check, execution, pause;
 * - decisions.ts: approve / decline / resume / send-tool-approval / auto-resume, each one claim;
 * - continuation.ts: after a claim, run the tool, close the row, continue the run and its parents;
 * - segment.ts, events.ts, context.ts: segments (streams, lease, failure) and event logs;
 * - pending.ts: pending rows, their chunks, and what other turns read about them.
 *
 * The engine receives the spec, never this class, so no module imports it back.
 */

export type { AgentStreamResult } from './context';
export type { DecisionInput } from './decisions';
export type { GenerateResult } from './generate';
export type { SuspendedRun } from './pending';
export type { AgentDefaultOptions, AgentHooks, AgentSpec } from './spec';
export type { StreamOptions } from './start';
export { DEFAULT_DECLINE_REASON } from './continuation';
export { EVENT_FLUSH_MS } from './events';
export { APPROVAL_RESUME_SCHEMA } from './pending';
export { LEASE_MS, LEASE_RENEW_MS } from './segment';

import type { DataPolicySource } from './data-policy';

export interface AgentConfig {
  id: string;
  name: string;
  instructions: string;
  model: LanguageModel;
  tools: Tool[];
  /** Sub-agents, each callable as the tool `agent-<key>` (supervisor pattern, behaviour §4). */
  agents?: Record<string, Agent>;
  /** Where runs, pending calls, events and memory live. */
  store: AgentStore;
  defaultOptions?: AgentDefaultOptions;
  hooks?: AgentHooks;
  /** How often a failed model call (429, 5xx, unreachable) is retried before the run fails (default 2, the AI SDK's). */
  maxRetries?: number;
  /**
   * How long a model step waits for the next piece of the provider's answer before it aborts the
   * request and fails as "the model provider stopped answering", in ms (default 60,000).
   */
  modelIdleTimeoutMs?: number;
  /** Approval policies kept as data, OR-ed with the code's (data-policy.ts); none when omitted. */
  dataPolicy?: DataPolicySource;
}

/**
 * An agent whose tool calls can pause for a person before they run, whose tools can suspend, and
 * which can delegate to sub-agents. Source: behaviour §1, §4. Route handlers wrap it; it knows no HTTP
 * and no database client.
 */
export class Agent {
  /** The plain description the engine runs (sub-agents' specs included). */
  readonly spec: AgentSpec;

  constructor(config: AgentConfig) {
    const agents = Object.fromEntries(Object.entries(config.agents ?? {}).map(([key, sub]) => [key, sub.spec]));
    this.spec = buildAgentSpec({ ...config, agents });
  }

  get id(): string {
    return this.spec.id;
  }
  get name(): string {
    return this.spec.name;
  }
  get instructions(): string {
    return this.spec.instructions;
  }
  get model(): LanguageModel {
    return this.spec.model;
  }
  /** Tools by id, delegation tools (`agent-<key>`) included. */
  get tools(): ReadonlyMap<string, Tool> {
    return this.spec.tools;
  }
  get defaultOptions(): AgentDefaultOptions {
    return this.spec.defaultOptions;
  }

  /** This agent's spec or one of its sub-agents' (at any depth) by id. */
  findAgent(agentId: string): AgentSpec | undefined {
    return findSpec(this.spec, agentId);
  }

  /**
   * Starts a run on a thread with a new user message and streams it (start.ts `startStream`:
   * waiting runs of the thread do not block it, behaviour §5a).
   *
   * @param input the user's message text, or model messages to add (user and assistant only)
   * @param options thread, resource (owner) and per-request options
   * @returns the stream result; the run goes on in the background whether or not it is read
   * @throws AgentError BAD_REQUEST (no messages, or a system/tool message), INVALID_INPUT (text
   *   PostgreSQL cannot store: NUL or a lone surrogate) — before anything is stored; RUN_IN_PROGRESS
   *   when a turn of the thread is still running (one turn at a time; nothing is stored)
   */
  stream(input: string | ModelMessage[], options: StreamOptions): Promise<AgentStreamResult> {
    return startStream(this.spec, input, options);
  }

  /**
   * Stops the thread's running turn, on whichever server runs it (stop.ts): the model call is
   * aborted, no call that has not started runs, a tool that has started is left to finish, and the
   * run ends `cancelled` ("Stopped"). A run waiting on a person is not running and is not touched.
   * @returns the run asked to stop, or null when no turn of the thread is running
   */
  stop(input: { threadId: string }): Promise<{ runId: string } | null> {
    return this.spec.store.requestStop(input);
  }

  /**
   * Like `stream()`, but waits for the segment to end and returns its result.
   * @returns `finishReason: 'suspended'` with `suspendedToolCalls` when a call waits on a person
   */
  async generate(input: string | ModelMessage[], options: StreamOptions): Promise<GenerateResult> {
    return summariseChunks(await this.stream(input, options));
  }

  /**
   * Approves a pending call; it executes once with the stored args (or `args`, validated against the
   * tool's `inputSchema`, when a reviewer edits them), then the run continues where it paused.
   *
   * @throws AgentError NO_SNAPSHOT_FOUND, TOOL_CALL_NOT_SUSPENDED, AMBIGUOUS_TOOL_CALL, ALREADY_DECIDED,
   *   FINGERPRINT_MISMATCH, WRONG_KIND, FOUR_EYES, INVALID_ARGS
   */
  approveToolCall(input: DecisionInput & { args?: unknown }): Promise<AgentStreamResult> {
    return decide(this.spec, { ...input, approved: true });
  }

  /**
   * Declines a pending call; `execute` never runs and the model receives `reason` (or
   * DEFAULT_DECLINE_REASON when it is missing or blank) as the tool result.
   *
   * @throws AgentError as approveToolCall
   */
  declineToolCall(input: DecisionInput & { reason?: string }): Promise<AgentStreamResult> {
    return decide(this.spec, { ...input, approved: false });
  }

  /**
   * Resumes a suspended call with data validated against the tool's `resumeSchema`; invalid data
   * is refused and the call stays pending.
   *
   * @throws AgentError INVALID_RESUME_DATA (details: zod issues), plus the errors of approveToolCall
   */
  resumeStream(resumeData: unknown, input: DecisionInput): Promise<AgentStreamResult> {
    return resumeToolCall(this.spec, resumeData, input);
  }

  /**
   * The deadline's decline (decisions.ts `expireDeadline`): declines a call whose `decline` deadline
   * passed, as the system, through the same claim as a person's decision; the run continues as
   * after a person's decline and the model reads `reason`. The job queue calls it (lib/jobs).
   *
   * @returns the continuation, or null when there was nothing to decline
   */
  expireDeadline(input: { runId: string; pendingCallId: string; reason: string }): Promise<AgentStreamResult | null> {
    return expireDeadline(this.spec, input);
  }

  /**
   * Continues this agent's top-level run `runId` whose process died in a model step (takeover.ts):
   * the step runs again here, streaming into the same assistant message. The recovery sweep calls it.
   *
   * @returns the continuation, or null when the run was not taken over (still owned, already taken,
   *   or it cannot continue: a call claimed or a tool of its step started)
   */
  takeOverRun(runId: string): Promise<AgentStreamResult | null> {
    return takeOverRun(this.spec, runId);
  }

  /** `approveToolCall`, returning the continuation's full result. */
  async approveToolCallGenerate(input: DecisionInput & { args?: unknown }): Promise<GenerateResult> {
    return summariseChunks(await this.approveToolCall(input));
  }

  /** `declineToolCall`, returning the continuation's full result. */
  async declineToolCallGenerate(input: DecisionInput & { reason?: string }): Promise<GenerateResult> {
    return summariseChunks(await this.declineToolCall(input));
  }

  /** `resumeStream`, returning the continuation's full result. */
  async resumeGenerate(resumeData: unknown, input: DecisionInput): Promise<GenerateResult> {
    return summariseChunks(await this.resumeStream(resumeData, input));
  }

  /**
   * This agent's top-level runs that wait on a person, newest first (pending.ts `listSuspendedRuns`).
   * Paginated only when both `page` (from 0) and `perPage` are given.
   * @returns `{ runs, total }` where total counts all matching runs
   */
  listSuspendedRuns(query: Omit<SuspendedRunsQuery, 'agentId'> = {}): Promise<{ runs: SuspendedRun[]; total: number }> {
    return listSuspendedRuns(this.spec, query);
  }

  /**
   * Decides or answers a pending call found in storage by thread and resource alone (no runId, no
   * in-memory state). The continuation runs in the background.
   *
   * @throws AgentError TOOL_CALL_NOT_SUSPENDED (nothing waiting), AMBIGUOUS_TOOL_CALL (several and
   *   no toolCallId), plus the errors of approveToolCall / resumeStream
   */
  sendToolApproval(input: Parameters<typeof sendToolApproval>[1]): Promise<{ accepted: true; runId: string; toolCallId: string; continuation: AgentStreamResult }> {
    return sendToolApproval(this.spec, input);
  }
}
