import { randomUUID } from 'node:crypto';
import { jsonSchema, NoSuchToolError, streamText, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import { CALL_ID_SEPARATOR, callsAddressedBy, qualifiedCallId } from './call-id';
import { ChunkChannel } from './channel';
import type { AgentChunk, ChunkPayloads, ChunkType, DecisionSummary } from './chunks';
import { AgentError } from './errors';
import { ANSWER_BROKE_OFF, classifyModelError, GENERIC_RUN_FAILURE, ModelCallError, runErrorMessage, type RunFailure } from './failure';
import { fingerprintToolCall } from './fingerprint';
import { extractResumeData, summariseChunks, type GenerateResult } from './generate';
import { historyOfStoppedRun, toModelOutput, toolsThatRan } from './history';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import {
  checkToolArgs,
  containsUnstorableText,
  safeToolCallId,
  safeToolName,
  storablePreview,
  storableText,
  storableValue,
  TextDeltaRepair,
} from './model-output';
import { approvalReason, type RequestApprovalPolicy } from './policy';
import type {
  AgentStore,
  CallOutcome,
  ClaimInput,
  Claimed,
  Lineage,
  NewPendingCall,
  PendingCall,
  RunRecord,
  RunState,
  StepCall,
  SuspendedRunsQuery,
} from './store';
import { createTool, isSuspendSignal, makeSuspendSignal, type Actor, type RequestContext, type Tool } from './tool';

export type { GenerateResult } from './generate';

/** Text the model receives for a decline without a reason. Source: behaviour §2 "Decline". */
export const DEFAULT_DECLINE_REASON = 'Tool call was not approved by the user';

/** JSON Schema (string) of an approval decision. Source: behaviour §1 "Stream chunks". */
export const APPROVAL_RESUME_SCHEMA = JSON.stringify(
  z.toJSONSchema(z.object({ approved: z.boolean(), reason: z.string().optional() })),
);

const DEFAULT_MAX_STEPS = 8;

/** How long emitted chunks may wait before they are written to the event log, in ms. */
export const EVENT_FLUSH_MS = 50;
/** A segment renews its run's lease this often, in ms … */
export const LEASE_RENEW_MS = 2_000;
/** … for this long, in ms: a run whose lease ran out has lost its process (see recovery.ts). */
export const LEASE_MS = 10_000;

export interface AgentHooks {
  /** Runs just before `execute`; `{ proceed: false, output }` skips it and feeds `output` to the model. */
  beforeToolCall?: (call: {
    toolName: string;
    input: unknown;
    toolCallId: string;
    runId: string;
  }) => void | { proceed: false; output: unknown } | Promise<void | { proceed: false; output: unknown }>;
}

export interface AgentDefaultOptions {
  requireToolApproval?: RequestApprovalPolicy;
  maxSteps?: number;
  autoResumeSuspendedTools?: boolean;
}

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
}

export interface StreamOptions {
  threadId: string;
  resourceId: string;
  /**
   * The signed-in identity starting the run, recorded as its requester: four-eyes refuses this
   * person on the run's reviewer-only calls, and an auto-resume answer is recorded as theirs.
   * Default: the resource, as an end user. HTTP adapters must pass the session's identity.
   */
  requester?: Actor;
  requireToolApproval?: RequestApprovalPolicy;
  requestContext?: RequestContext;
  maxSteps?: number;
  /** Id of the assistant UI message the run streams into (generated when omitted). */
  messageId?: string;
  /** Aborts the model call and tool execution (e.g. a Stop button); a disconnect alone does not. */
  abortSignal?: AbortSignal;
  /**
   * With memory on the thread, a new user message answers the thread's pending suspension: the
   * model extracts `resumeData` from it following the tool's `resumeSchema`. Approvals never
   * auto-resume. Source: behaviour §3.
   */
  autoResumeSuspendedTools?: boolean;
}

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

export interface DecisionInput {
  /** The top-level run. */
  runId: string;
  /**
   * The call as shown at the top level: its qualified id (see call-id.ts; a top-level call's own id).
   * A sub-agent's own call id or its delegation's id is also accepted while it names one open call.
   */
  toolCallId?: string;
  actor: Actor;
  /** The fingerprint the decider saw; a mismatch is refused (FINGERPRINT_MISMATCH). */
  fingerprint?: string;
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
 * One segment of work started by `stream()` or a decision: the chunks its caller reads. Only the
 * top-level run's chunks, and pauses surfacing from below, are published; everything a run emits
 * goes to that run's own event log.
 */
interface Segment {
  channel: ChunkChannel;
  topRunId: string;
  topMessageId: string;
  /** The agent the segment was started on; finds sub-agents by id. */
  root: Agent;
  /** Whether the top-level run published its `finish` in this segment. */
  finished: boolean;
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
interface RunContext {
  segment: Segment;
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

type ExecutionOutcome = { outcome: CallOutcome } | { suspended: unknown } | { delegated: 'waiting' };

/** An open row a decision addresses, read before claiming it. */
interface DecisionTarget {
  top: { id: string; messageId: string; agentId: string };
  row: PendingCall;
  owner: Agent;
}

/** What a decision does once its call is claimed. */
interface ContinueDecision {
  approved: boolean;
  /** The arguments the tool runs with. */
  args: unknown;
  reason?: string;
  resumeData?: unknown;
  decision: DecisionSummary;
}

/** How `claimAndContinue` claims a call. */
interface ClaimPlan {
  kind: 'approval' | 'suspension';
  status: 'approved' | 'declined' | 'resumed';
  reason: string | null;
  resumeData: unknown;
  edited?: { args: unknown; fingerprint: string };
  /** The row, when the caller read it first. */
  known?: DecisionTarget;
  /** The assistant message the continuation streams into (default: the run's). */
  messageId?: string;
  /** The continuation's decision, given the row as claimed and the decision time (ISO 8601). */
  continuation: (row: PendingCall, at: string) => ContinueDecision;
}
type StepsResult = { status: 'completed'; text: string } | { status: 'suspended' };

const makeChunk = <T extends ChunkType>(runId: string, type: T, payload: ChunkPayloads[T]) =>
  ({ type, runId, from: 'AGENT', payload }) as AgentChunk;

/**
 * An agent whose tool calls can pause for a person before they run, whose tools can suspend, and
 * which can delegate to sub-agents. Source: behaviour §1, §4. Route handlers wrap it; it knows no HTTP
 * and no database client.
 */
export class Agent {
  readonly id: string;
  readonly name: string;
  readonly instructions: string;
  readonly model: LanguageModel;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly defaultOptions: AgentDefaultOptions;
  /** Sub-agents by their delegation tool's name (`agent-<key>`). */
  private readonly delegates: ReadonlyMap<string, Agent>;
  private readonly store: AgentStore;
  private readonly hooks: AgentHooks;
  private executableTools?: string[];
  private readonly maxRetries?: number;

  constructor(config: AgentConfig) {
    this.id = config.id;
    this.name = config.name;
    this.instructions = config.instructions;
    this.model = config.model;
    this.store = config.store;
    this.defaultOptions = config.defaultOptions ?? {};
    this.hooks = config.hooks ?? {};
    this.maxRetries = config.maxRetries;
    const delegates = new Map<string, Agent>();
    const tools = new Map(config.tools.map((tool) => [tool.id, tool]));
    for (const [key, sub] of Object.entries(config.agents ?? {})) {
      const toolName = `agent-${key}`;
      delegates.set(toolName, sub);
      tools.set(
        toolName,
        createTool({
          id: toolName,
          description: `Delegate a task to ${sub.name}. Give it the whole request in plain words.`,
          inputSchema: z.object({ prompt: z.string().min(1).max(8_000) }),
          // Never called: the runtime runs a delegation as a child run (see `delegate`).
          execute: () => {
            throw new Error('delegation tools run as child runs');
          },
        }),
      );
    }
    this.tools = tools;
    this.delegates = delegates;
  }

  /** This agent or one of its sub-agents (at any depth) by id. */
  findAgent(agentId: string): Agent | undefined {
    if (agentId === this.id) return this;
    for (const sub of this.delegates.values()) {
      const found = sub.findAgent(agentId);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * Starts a run on a thread with a new user message and streams it. Runs of the thread that still
   * wait on a person do not block it: the model reads them with their waiting calls as pending, a
   * call identical to a waiting one (same fingerprint) gets an `already-pending` result instead of
   * waiting twice, and the waiting calls stay decidable (behaviour §5a).
   *
   * @param input the user's message text, or model messages to add (user and assistant only:
   *   the agent's instructions are its system prompt). All of them are stored in the thread's
   *   memory, in order, before the run starts.
   * @param options thread, resource (owner) and per-request options
   * @returns the stream result; the run goes on in the background whether or not it is read
   * @throws AgentError BAD_REQUEST (no messages, or a system/tool message), INVALID_INPUT (text
   *   PostgreSQL cannot store: NUL or a lone surrogate) — before anything is stored
   */
  async stream(input: string | ModelMessage[], options: StreamOptions): Promise<AgentStreamResult> {
    const { threadId, resourceId } = options;
    checkInput(input);
    const requester: Actor = options.requester ?? { id: resourceId, role: 'user' };
    const autoResume = options.autoResumeSuspendedTools ?? this.defaultOptions.autoResumeSuspendedTools ?? false;
    if (autoResume && typeof input === 'string') {
      const resumed = await this.tryAutoResume(input, options, requester);
      if (resumed) return resumed;
    }
    const newMessages: ModelMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
    const runId = randomUUID();
    const messageId = options.messageId ?? randomUUID();
    // The store puts the thread's memory in front of this input as it creates the run.
    const initial = this.initialState({
      messages: newMessages,
      historyLength: newMessages.length,
      maxSteps: options.maxSteps,
      requestContext: options.requestContext ?? {},
      requestPolicy: options.requireToolApproval,
      lineage: {
        rootRunId: runId,
        rootMessageId: messageId,
        rootToolCallId: null,
        delegationCallId: null,
        parentToolCallId: null,
        chain: [this.id],
      },
    });
    const inputMessages = newMessages.map((message) => ({ id: randomUUID(), message }));
    const { history, open, waiting } = await this.store.startRun({
      run: { id: runId, threadId, resourceId, requestedBy: requester.id, agentId: this.id, parentRunId: null, messageId, status: 'running', state: initial },
      title: typeof input === 'string' ? input.slice(0, 80) : undefined,
      inputMessages,
      leaseMs: LEASE_MS,
    });
    // Runs of the thread still waiting on a person are not in memory yet (only finished runs are):
    // the model reads them as they stand, their waiting calls as pending (never stored as this run's).
    const turns = waitingTurns(waiting, open);
    const state: RunState = {
      ...initial,
      messages: [...history, ...turns, ...newMessages],
      historyLength: history.length + turns.length + newMessages.length,
    };
    const run: RunRecord = { id: runId, threadId, resourceId, requestedBy: requester.id, agentId: this.id, parentRunId: null, messageId, status: 'running', state };
    return this.launch({ id: runId, messageId }, async (segment) => {
      const ctx = this.context(segment, run, state, { requestPolicy: options.requireToolApproval, abortSignal: options.abortSignal });
      ctx.openAtStart = open;
      this.emit(ctx, 'start', { messageId, threadId });
      await this.runSteps(ctx);
    });
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
    return this.decide({ ...input, approved: true });
  }

  /**
   * Declines a pending call; `execute` never runs and the model receives `reason` (or
   * DEFAULT_DECLINE_REASON when it is missing or blank) as the tool result.
   *
   * @throws AgentError as approveToolCall
   */
  declineToolCall(input: DecisionInput & { reason?: string }): Promise<AgentStreamResult> {
    return this.decide({ ...input, approved: false });
  }

  /**
   * Resumes a suspended call with data validated against the tool's `resumeSchema`; invalid data
   * is refused and the call stays pending.
   *
   * @throws AgentError INVALID_RESUME_DATA (details: zod issues), plus the errors of approveToolCall
   */
  async resumeStream(resumeData: unknown, input: DecisionInput): Promise<AgentStreamResult> {
    // The answer is checked against the asking tool's schema before anything is claimed, so the row is read first.
    const target = await this.findOpenCall(input);
    const tool = target.owner.checkDecidable(target.row, input, 'suspension');
    if (exceedsJsonDepth(resumeData)) {
      throw new AgentError('INVALID_RESUME_DATA', `The answer is nested deeper than ${MAX_JSON_DEPTH} levels.`);
    }
    const parsed = (tool.resumeSchema ?? z.unknown()).safeParse(resumeData);
    if (!parsed.success) {
      throw new AgentError('INVALID_RESUME_DATA', 'The answer does not match what the tool asked for.', parsed.error.issues);
    }
    if (containsUnstorableText(parsed.data)) {
      throw new AgentError('INVALID_RESUME_DATA', 'The answer contains a NUL character or broken Unicode (a lone surrogate).');
    }
    return this.claimAndContinue(input, {
      kind: 'suspension',
      status: 'resumed',
      reason: null,
      resumeData: parsed.data,
      known: target,
      continuation: (row, at) => ({ approved: true, args: row.args, resumeData: parsed.data, decision: { by: input.actor.id, at, resumeData: parsed.data } }),
    });
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
   * This agent's top-level runs that wait on a person, newest first, read from the pending-call
   * table (calls raised by sub-agents included, each under its own qualified id). Paginated only
   * when both `page` (from 0) and `perPage` are given. Page and `total` come from one snapshot: once
   * a decision is accepted, its call is listed nowhere, and `total` equals what paging yields.
   *
   * @param query.fromDate / query.toDate bounds on when the run's newest waiting call was raised
   * @returns `{ runs, total }` where total counts all matching runs
   */
  async listSuspendedRuns(query: Omit<SuspendedRunsQuery, 'agentId'> = {}): Promise<{ runs: SuspendedRun[]; total: number }> {
    const { runs, total } = await this.store.listSuspendedRuns({ ...query, agentId: this.id });
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

  /**
   * Decides or answers a pending call found in storage by thread and resource alone (no runId, no
   * in-memory state). The continuation runs in the background.
   *
   * @throws AgentError TOOL_CALL_NOT_SUSPENDED (nothing waiting), AMBIGUOUS_TOOL_CALL (several and
   *   no toolCallId), plus the errors of approveToolCall / resumeStream
   */
  async sendToolApproval(input: {
    threadId: string;
    resourceId: string;
    toolCallId?: string;
    approved: boolean;
    reason?: string;
    resumeData?: unknown;
    actor: Actor;
  }): Promise<{ accepted: true; runId: string; toolCallId: string; continuation: AgentStreamResult }> {
    const open = callsAddressedBy(
      (await this.store.findOpenPendingCalls({ threadId: input.threadId, resourceId: input.resourceId })).filter(
        (row) => this.findAgent(row.agentId) !== undefined,
      ),
      input.toolCallId,
    );
    if (open.length === 0) throw new AgentError('TOOL_CALL_NOT_SUSPENDED', 'Nothing is waiting on this thread.');
    if (open.length > 1) {
      throw new AgentError('AMBIGUOUS_TOOL_CALL', 'Several calls are waiting; say which toolCallId.', {
        toolCallIds: open.map((row) => row.rootToolCallId),
      });
    }
    const [row] = open;
    const target = { runId: row.rootRunId, toolCallId: row.rootToolCallId, actor: input.actor };
    let continuation: AgentStreamResult;
    if (row.kind === 'suspension') {
      if (!input.approved) throw new AgentError('WRONG_KIND', 'This call asks for data; send resumeData.');
      continuation = await this.resumeStream(input.resumeData, target);
    } else if (input.approved) {
      continuation = await this.approveToolCall(target);
    } else {
      continuation = await this.declineToolCall({ ...target, reason: input.reason });
    }
    return { accepted: true, runId: row.rootRunId, toolCallId: row.rootToolCallId, continuation };
  }

  // ---------------------------------------------------------------------------------------------
  // Deciding

  private async decide(input: DecisionInput & { approved: boolean; reason?: string; args?: unknown }) {
    const reason = input.approved ? null : input.reason?.trim() || null;
    const decision = (editedFrom: unknown, at: string): DecisionSummary => ({
      approved: input.approved,
      ...(reason ? { reason } : {}),
      ...(editedFrom !== undefined ? { editedFrom } : {}),
      by: input.actor.id,
      at,
    });
    if (!(input.approved && input.args !== undefined)) {
      return this.claimAndContinue(input, {
        kind: 'approval',
        status: input.approved ? 'approved' : 'declined',
        reason,
        resumeData: null,
        continuation: (row, at) => ({ approved: input.approved, args: row.args, reason: reason ?? undefined, decision: decision(undefined, at) }),
      });
    }
    // Edited arguments are validated against the tool's inputSchema before anything is claimed.
    const target = await this.findOpenCall(input);
    const tool = target.owner.checkDecidable(target.row, input, 'approval');
    if (exceedsJsonDepth(input.args)) throw new AgentError('INVALID_ARGS', `The edited arguments are nested deeper than ${MAX_JSON_DEPTH} levels.`);
    const parsed = tool.inputSchema.safeParse(input.args);
    if (!parsed.success) throw new AgentError('INVALID_ARGS', 'The edited arguments are not valid for this tool.', parsed.error.issues);
    // Edited args meet the same bar as a model's (storable, no invisible controls, size, depth).
    const checked = checkToolArgs(parsed.data);
    if (!checked.ok) throw new AgentError('INVALID_ARGS', checked.problem.replace(/; nothing was run\..*$/, '.'));
    const args = parsed.data;
    const fingerprint = fingerprintToolCall({ toolName: target.row.toolName, args });
    const edited = fingerprint !== target.row.fingerprint;
    return this.claimAndContinue(input, {
      kind: 'approval',
      status: 'approved',
      reason: null,
      resumeData: null,
      edited: edited ? { args, fingerprint } : undefined,
      known: target,
      continuation: (_row, at) => ({ approved: true, args, decision: decision(edited ? target.row.args : undefined, at) }),
    });
  }

  /**
   * Claims the call a decision addresses and launches its continuation. Unless the caller had to
   * read the row first (`known`: to validate edited args or an answer), the claim is the first
   * statement: it compare-and-sets the row (open, of this kind, executable here, the actor eligible,
   * the fingerprint as seen), and only when it claimed nothing do the reads run that say why.
   *
   * @throws AgentError NO_SNAPSHOT_FOUND, TOOL_CALL_NOT_SUSPENDED, AMBIGUOUS_TOOL_CALL, ALREADY_DECIDED,
   *   WRONG_KIND, UNKNOWN_TOOL, FOUR_EYES, FINGERPRINT_MISMATCH
   */
  private async claimAndContinue(input: DecisionInput, how: ClaimPlan): Promise<AgentStreamResult> {
    const at = new Date().toISOString();
    const fingerprint = input.fingerprint || undefined;
    const claim = (extra: Partial<ClaimInput>) =>
      this.store.claimPendingCall({
        rootRunId: input.runId,
        toolCallId: input.toolCallId,
        agentId: this.id,
        executable: this.executable(),
        kind: how.kind,
        fingerprint,
        actor: input.actor,
        status: how.status,
        reason: how.reason,
        resumeData: how.resumeData,
        edited: how.edited,
        decisionId: randomUUID(),
        leaseMs: LEASE_MS,
        ...extra,
      });
    if (how.known) {
      const { row, owner } = how.known;
      const top = { id: how.known.top.id, messageId: how.messageId ?? how.known.top.messageId };
      const asClaimed: PendingCall = { ...row, ...(how.edited ?? {}) };
      // The decision's chunks commit with the claim (save, then publish).
      const chunks = owner.decisionChunks(top, asClaimed, how.continuation(row, at).decision);
      const claimed = await claim({ pendingCallId: row.id, agentId: how.known.top.agentId, topEvents: chunks.top });
      if (!claimed) {
        await this.explainRefusal(input, how.kind);
        throw alreadyDecided(row);
      }
      const continuation = how.continuation(row, at);
      return this.launch(top, (segment) => owner.continueAfterClaim(segment, claimed, continuation, { saved: true }));
    }
    let claimed: Claimed | null = null;
    for (let attempt = 1; !claimed; attempt += 1) {
      claimed = await claim({});
      if (claimed) break;
      await this.explainRefusal(input, how.kind);
      // The reads found the call decidable after all: it changed in between (e.g. asked again); claim anew.
      if (attempt === 3) throw new AgentError('TOOL_CALL_NOT_SUSPENDED', 'The call kept changing; look at it again.');
    }
    const owner = this.findAgent(claimed.call.agentId)!;
    const top = { id: input.runId, messageId: claimed.topMessageId };
    const continuation = how.continuation(claimed.call, at);
    return this.launch(top, (segment) => owner.continueAfterClaim(segment, claimed, continuation, { saved: false }));
  }

  /**
   * Reads why a claim claimed nothing and throws it, checking in the order a reader would: the run,
   * the call, its kind, its tool, who decides, what they saw. Returns when the call is decidable now.
   */
  private async explainRefusal(input: DecisionInput, kind: 'approval' | 'suspension'): Promise<void> {
    const { row, owner } = await this.findOpenCall(input);
    owner.checkDecidable(row, input, kind);
  }

  /**
   * The per-call checks of a decision on `row` (an open row of this agent).
   * @returns the row's tool
   * @throws AgentError WRONG_KIND, UNKNOWN_TOOL, FOUR_EYES, FINGERPRINT_MISMATCH
   */
  private checkDecidable(row: PendingCall, input: DecisionInput, kind: 'approval' | 'suspension'): Tool {
    if (row.kind !== kind) {
      throw new AgentError('WRONG_KIND', kind === 'approval' ? 'This call asks for data, not for an approval.' : 'This call waits for an approval, not for data.');
    }
    const tool = this.requireTool(row.toolName);
    authorize(row, input.actor);
    if (input.fingerprint && input.fingerprint !== row.fingerprint) {
      throw new AgentError(
        'FINGERPRINT_MISMATCH',
        kind === 'approval' ? 'The call changed since it was shown; look at it again.' : 'The call changed since it was shown.',
      );
    }
    return tool;
  }

  /** `agentId toolName` of every tool this agent's tree runs, each agent id resolved as `findAgent` does. */
  private executable(): string[] {
    if (!this.executableTools) {
      const pairs: string[] = [];
      const seen = new Set<string>();
      const visit = (agent: Agent) => {
        if (!seen.has(agent.id)) {
          seen.add(agent.id);
          for (const toolName of agent.tools.keys()) pairs.push(`${agent.id} ${toolName}`);
        }
        for (const sub of agent.delegates.values()) visit(sub);
      };
      visit(this);
      this.executableTools = pairs;
    }
    return this.executableTools;
  }

  private requireTool(toolName: string): Tool {
    const tool = this.tools.get(toolName);
    if (!tool) throw new AgentError('UNKNOWN_TOOL', `This agent has no tool ${toolName}.`);
    return tool;
  }

  /**
   * Finds the open row a decision on the top-level run addresses, by its qualified id (a sub-agent's
   * call: `<delegation id>~…~<own id>`, see call-id.ts); a leaf's own id or a delegation's id is
   * accepted while it names exactly one open call. One read.
   */
  private async findOpenCall(input: DecisionInput): Promise<DecisionTarget> {
    const { run, calls } = await this.store.loadDecisionTarget({ rootRunId: input.runId });
    if (!run || run.agentId !== this.id || run.parentRunId !== null) {
      throw new AgentError('NO_SNAPSHOT_FOUND', `No paused run ${input.runId}.`);
    }
    const rows = calls.filter((row) => row.kind !== 'delegation');
    // Addressed among all rows first: an id naming a decided call never falls through to another one.
    const addressed = callsAddressedBy(rows, input.toolCallId);
    if (!run.hasState) {
      // The run is over. A late decision on a call it had is told who won; anything else is unknown.
      const decided = input.toolCallId === undefined ? undefined : addressed.at(-1);
      if (decided) throw alreadyDecided(decided);
      throw new AgentError('NO_SNAPSHOT_FOUND', `No paused run ${input.runId}.`);
    }
    const open = addressed.filter((row) => row.status === 'pending');
    if (open.length > 1) {
      throw new AgentError('AMBIGUOUS_TOOL_CALL', 'Several calls are waiting; say which toolCallId.', {
        toolCallIds: open.map((row) => row.rootToolCallId),
      });
    }
    if (open.length === 0) {
      const decided = input.toolCallId === undefined ? undefined : addressed.at(-1);
      if (decided) throw alreadyDecided(decided);
      throw new AgentError(
        'TOOL_CALL_NOT_SUSPENDED',
        input.toolCallId === undefined ? 'Nothing is waiting in this run.' : `Tool call ${input.toolCallId} is not waiting.`,
      );
    }
    const owner = this.findAgent(open[0].agentId);
    if (!owner) throw new AgentError('NO_SNAPSHOT_FOUND', `No agent ${open[0].agentId} under ${this.id}.`);
    return { top: { id: run.id, messageId: run.messageId, agentId: run.agentId }, row: open[0], owner };
  }

  /**
   * Auto-resume (behaviour §3): the thread's single pending suspension is answered by `text` when the
   * model can extract data that passes the tool's `resumeSchema`. The claim closes the superseded
   * suspension, so it can never be answered twice.
   *
   * @param actor who sends the message (the run's requester); the answer is recorded as theirs
   * @returns the continuation, or null when nothing was resumed (the message starts a new run)
   */
  private async tryAutoResume(text: string, options: StreamOptions, actor: Actor): Promise<AgentStreamResult | null> {
    const open = (await this.store.findOpenPendingCalls({ threadId: options.threadId, resourceId: options.resourceId })).filter(
      (row) => this.findAgent(row.agentId) !== undefined,
    );
    // Approvals are never auto-resumed, nor questions only a reviewer may answer (four-eyes); with
    // several calls open, guessing which is answered is unsafe.
    if (open.length !== 1 || open[0].kind !== 'suspension' || open[0].approvers === 'reviewer') return null;
    const [row] = open;
    const owner = this.findAgent(row.agentId)!;
    const tool = owner.tools.get(row.toolName);
    if (!tool?.resumeSchema) return null;
    const extracted = await extractResumeData({ model: this.model, schema: tool.resumeSchema, text, suspendPayload: row.suspendPayload });
    // The model's extraction is model output: data that could not be stored answers nothing.
    if (extracted === undefined || containsUnstorableText(extracted)) return null;
    const top = await this.store.loadRun({ runId: row.rootRunId });
    if (!top?.state) return null;
    await this.store.addUserMessage({ threadId: options.threadId, runId: top.id, message: { role: 'user', content: text } });
    // A new assistant message follows the user's answer; the run itself continues where it paused.
    return this.claimAndContinue(
      { runId: top.id, toolCallId: row.rootToolCallId, actor },
      {
        kind: 'suspension',
        status: 'resumed',
        reason: null,
        resumeData: extracted,
        known: { top: { id: top.id, messageId: top.messageId, agentId: top.agentId }, row, owner },
        messageId: options.messageId ?? randomUUID(),
        continuation: (claimedRow, at) => ({ approved: true, args: claimedRow.args, resumeData: extracted, decision: { by: actor.id, at, resumeData: extracted } }),
      },
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Segments and contexts

  /**
   * Runs `body` in the background as one segment of the top-level run and returns streams over what
   * it publishes. A segment always ends with the top-level run's `finish` chunk.
   */
  private launch(top: { id: string; messageId: string }, body: (segment: Segment) => Promise<void>): AgentStreamResult {
    const channel = new ChunkChannel();
    const segment: Segment = {
      channel,
      topRunId: top.id,
      topMessageId: top.messageId,
      root: this,
      finished: false,
      surface: async (chunks) => {
        const queued = segment.top ? await this.saved(segment.top) : [];
        await this.store.appendEvents({ runId: top.id, chunks: [...queued, ...chunks] });
        for (const chunk of chunks) {
          if (chunk.type === 'finish') segment.finished = true;
          channel.push(chunk);
        }
      },
    };
    const renew = () =>
      this.store
        .renewLease({ runId: top.id, ms: LEASE_MS })
        .catch((error) => console.error(`[agent ${this.id}] lease renewal failed for run ${top.id}:`, error));
    const heartbeat = setInterval(renew, LEASE_RENEW_MS);
    const done = (async () => {
      try {
        // The statement that started the segment (a new run, a claim) took the lease already.
        await body(segment);
        if (!segment.finished) await segment.surface([makeChunk(top.id, 'finish', { finishReason: 'suspended' })]);
      } catch (error) {
        await this.failSegment(segment, error);
      }
    })().finally(() => {
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
  private async failSegment(segment: Segment, error: unknown) {
    const runId = segment.topRunId;
    const failure: RunFailure = error instanceof ModelCallError ? error.failure : { code: 'RUN_FAILED', message: GENERIC_RUN_FAILURE };
    console.error(`[agent ${this.id}] run ${runId} failed (${failure.code}):`, error);
    const ctx = segment.top;
    const published = ctx ? await this.saved(ctx) : [];
    const state = ctx?.state ?? (await this.store.loadRun({ runId }).catch(() => null))?.state ?? null;
    const rows = state ? await this.store.listPendingCalls({ runId }).catch(() => []) : [];
    const newMessages = state ? historyOfStoppedRun(state, rows) : [];
    const chunks = [
      makeChunk(runId, 'error', { message: runErrorMessage(failure, toolsThatRan(newMessages)), code: failure.code }),
      makeChunk(runId, 'finish', { finishReason: 'error' }),
    ];
    for (const chunk of chunks) segment.channel.push(chunk);
    const reason = storablePreview(error instanceof Error ? error.message : String(error), 2_000);
    try {
      await this.store.finishRun({ runId, status: 'failed', error: reason, events: [...published, ...chunks], newMessages });
    } catch (storeError) {
      // Whatever made the full write fail, the turn and its error must still survive a reload.
      console.error(`[agent ${this.id}] could not record run ${runId} as failed with its history:`, storeError);
      await this.store
        .finishRun({ runId, status: 'failed', error: reason, events: [...published, ...chunks], newMessages: [] })
        .catch((lastError) => console.error(`[agent ${this.id}] could not mark run ${runId} failed:`, lastError));
    }
  }

  private context(
    segment: Segment,
    run: RunRecord,
    state: RunState,
    options: { requestPolicy?: RequestApprovalPolicy; abortSignal?: AbortSignal } = {},
  ): RunContext {
    const ctx: RunContext = {
      segment,
      run,
      state,
      isTop: run.parentRunId === null,
      requestPolicy: options.requestPolicy,
      abortSignal: options.abortSignal,
      unsaved: [],
      lastText: '',
      flushing: Promise.resolve(),
    };
    if (ctx.isTop) segment.top = ctx;
    return ctx;
  }

  /** Queues a chunk for the run's own log; the top-level run also publishes it at once. */
  private emit<T extends ChunkType>(ctx: RunContext, type: T, payload: ChunkPayloads[T]): AgentChunk {
    const chunk = makeChunk(ctx.run.id, type, payload);
    ctx.unsaved.push(chunk);
    this.scheduleFlush(ctx);
    if (ctx.isTop) {
      if (chunk.type === 'finish') ctx.segment.finished = true;
      ctx.segment.channel.push(chunk);
    }
    return chunk;
  }

  private takeUnsaved(ctx: RunContext): AgentChunk[] {
    return coalesceTextDeltas(ctx.unsaved.splice(0));
  }

  /**
   * Writes what is queued after EVENT_FLUSH_MS, batching a step's deltas into few INSERTs. A write
   * that fails puts its chunks back in front of the queue: the next write (or the failure path)
   * carries them, so published chunks are never dropped from the log.
   */
  private scheduleFlush(ctx: RunContext) {
    if (ctx.flushTimer) return;
    ctx.flushTimer = setTimeout(() => {
      ctx.flushTimer = undefined;
      const chunks = this.takeUnsaved(ctx);
      if (chunks.length === 0) return;
      ctx.flushing = ctx.flushing
        .then(() => this.store.appendEvents({ runId: ctx.run.id, chunks }))
        .catch((error) => {
          console.error(`[agent ${this.id}] event write failed for run ${ctx.run.id}; kept for the next write:`, error);
          ctx.unsaved.unshift(...chunks);
        });
    }, EVENT_FLUSH_MS);
  }

  /**
   * Runs a store write that carries the queued chunks (in its own transaction). If it fails, the
   * chunks go back in front of the queue, so a failed write never takes already-published chunks
   * with it; the failure path writes them with the run's error.
   */
  private async withEvents<T>(ctx: RunContext, write: (events: AgentChunk[]) => Promise<T>): Promise<T> {
    const events = await this.saved(ctx);
    try {
      return await write(events);
    } catch (error) {
      ctx.unsaved.unshift(...events);
      throw error;
    }
  }

  /** The queued chunks, once earlier writes landed: to write within the caller's transaction, in order. */
  private async saved(ctx: RunContext): Promise<AgentChunk[]> {
    clearTimeout(ctx.flushTimer);
    ctx.flushTimer = undefined;
    await ctx.flushing;
    return this.takeUnsaved(ctx);
  }

  /**
   * Publishes a pause or a decision at the top level. A sub-agent's chunk is re-addressed to the
   * top-level run under the call's qualified id (see call-id.ts); the top-level run's own chunks are
   * already in its log.
   */
  private async surface(ctx: RunContext, chunks: AgentChunk[]) {
    if (ctx.isTop) {
      for (const chunk of chunks) ctx.segment.channel.push(chunk);
      return;
    }
    const delegationCallId = delegationCallIdOf(ctx.state.lineage);
    await ctx.segment.surface(readdress(chunks, ctx.state.lineage.rootRunId, (toolCallId) => qualifiedCallId(delegationCallId, toolCallId)));
  }

  private initialState(input: {
    messages: ModelMessage[];
    historyLength: number;
    maxSteps?: number;
    requestContext: RequestContext;
    requestPolicy?: RequestApprovalPolicy;
    lineage: Lineage;
  }): RunState {
    return {
      messages: input.messages,
      step: 0,
      maxSteps: input.maxSteps ?? this.defaultOptions.maxSteps ?? DEFAULT_MAX_STEPS,
      stepCalls: [],
      historyLength: input.historyLength,
      requestContext: input.requestContext,
      textPartCounter: 0,
      requestApproval: storablePolicy(input.requestPolicy),
      lineage: input.lineage,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The step loop

  /** The model/tool loop: one model step at a time until the model stops, a call pauses, or maxSteps. */
  private async runSteps(ctx: RunContext): Promise<StepsResult> {
    const { state } = ctx;
    for (;;) {
      if (state.step >= state.maxSteps) {
        this.emit(ctx, 'finish', { finishReason: 'length' });
        await this.finish(ctx);
        return { status: 'completed', text: ctx.lastText };
      }
      this.emit(ctx, 'step-start', { step: state.step });
      const { calls, refused, declined } = await this.modelStep(ctx);
      if (calls.length === 0) {
        this.emit(ctx, 'step-finish', { step: state.step, finishReason: 'stop' });
        state.step += 1;
        this.emit(ctx, 'finish', { finishReason: declined ? 'content-filter' : 'stop' });
        await this.finish(ctx);
        return { status: 'completed', text: ctx.lastText };
      }
      state.stepCalls = calls;
      const waiting: NewPendingCall[] = [];
      const toRun: StepCall[] = [];
      // One pending call per tool and canonical args on a thread: a twin gets "already pending".
      // The thread's waiting calls are read when a call might wait (the run's first step has them from its start).
      let openOnThread: Promise<PendingCall[]> | undefined = ctx.openAtStart && Promise.resolve(ctx.openAtStart);
      ctx.openAtStart = undefined;
      const pendingTwin = async (tool: Tool, args: unknown): Promise<NewPendingCall | undefined> => {
        const fingerprint = fingerprintToolCall({ toolName: tool.id, args });
        openOnThread ??= this.store.findOpenPendingCalls({ threadId: ctx.run.threadId });
        return waiting.find((row) => row.fingerprint === fingerprint) ?? (await openOnThread).find((row) => row.fingerprint === fingerprint);
      };
      for (const call of calls) {
        this.emit(ctx, 'tool-call', { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args });
        // Args a model sent that cannot be stored, approved or replayed fail as this call (model-output.ts).
        const problem = refused.get(call.toolCallId);
        if (problem) {
          this.settle(ctx, call, { type: 'error', message: problem });
          continue;
        }
        const tool = this.tools.get(call.toolName);
        if (!tool) {
          this.settle(ctx, call, { type: 'error', message: `Unknown tool ${call.toolName}` });
          continue;
        }
        // Input is validated before approval is asked: an invalid call never reaches a reviewer.
        const parsed = tool.inputSchema.safeParse(call.args);
        if (!parsed.success) {
          this.settle(ctx, call, { type: 'error', message: `Invalid input: ${z.prettifyError(parsed.error)}` });
          continue;
        }
        // A schema's transforms could produce what the model could not send; check the parsed args too.
        const checked = checkToolArgs(parsed.data);
        if (!checked.ok) {
          this.settle(ctx, call, { type: 'error', message: checked.problem });
          continue;
        }
        call.args = parsed.data;
        const reason = await approvalReason({
          tool,
          args: call.args,
          requestContext: state.requestContext,
          requestPolicy: ctx.requestPolicy ?? storedPolicy(state.requestApproval),
          agentDefault: this.defaultOptions.requireToolApproval,
        });
        if (!reason) {
          toRun.push(call);
          continue;
        }
        const twin = await pendingTwin(tool, call.args);
        if (twin) this.settle(ctx, call, alreadyPending(twin));
        else waiting.push(this.pendingRow(ctx, tool, call, { kind: 'approval', policy: reason }));
      }
      // Calls that need no approval run right away, even when others of the step wait.
      let delegationsWaiting = false;
      for (const call of toRun) {
        const tool = this.tools.get(call.toolName)!;
        // A tool that can suspend is not run again while the same question waits on the thread.
        const twin = tool.suspendSchema || tool.resumeSchema ? await pendingTwin(tool, call.args) : undefined;
        if (twin) {
          this.settle(ctx, call, alreadyPending(twin));
          continue;
        }
        const result = await this.execute(ctx, tool, call, {});
        if ('suspended' in result) waiting.push(this.pendingRow(ctx, tool, call, { kind: 'suspension', payload: result.suspended }));
        if ('delegated' in result) delegationsWaiting = true;
      }
      if (waiting.length > 0 || delegationsWaiting) {
        const continued = await this.pause(ctx, waiting);
        if (!continued) return { status: 'suspended' };
        continue;
      }
      this.appendToolResults(state, calls);
      this.emit(ctx, 'step-finish', { step: state.step, finishReason: 'tool-calls' });
      state.step += 1;
      await this.withEvents(ctx, (events) => this.store.saveRunState({ runId: ctx.run.id, state, events }));
    }
  }

  /**
   * One model call through the AI SDK's streamText; tools are declared but executed by us. This is
   * the runtime's boundary for model output (model-output.ts): text deltas are repaired, tool-call
   * ids and names made safe, and calls whose args cannot be used are returned in `refused` with the
   * error the model will read. Their args appear as a storable preview in chunks and as `{}` in the
   * model history (every provider accepts an empty object; the error says what was wrong).
   *
   * @throws ModelCallError when the provider fails or its answer breaks off (classified, failure.ts)
   */
  private async modelStep(ctx: RunContext): Promise<{ calls: StepCall[]; refused: Map<string, string>; declined: boolean }> {
    const { state } = ctx;
    const tools: ToolSet = {};
    for (const tool of this.tools.values()) {
      // No `execute` and no validation here: the runtime validates, asks for approval and executes.
      tools[tool.id] = { description: tool.description, inputSchema: jsonSchema(z.toJSONSchema(tool.inputSchema) as never) };
    }
    const result = streamText({
      model: this.model,
      system: this.instructions,
      messages: state.messages,
      tools,
      abortSignal: ctx.abortSignal,
      maxRetries: this.maxRetries,
    });
    const calls: StepCall[] = [];
    const refused = new Map<string, string>();
    const content: Exclude<ModelMessage & { role: 'assistant' }, { content: string }>['content'] = [];
    const textIds = new Map<string, string>();
    const texts = new Map<string, string>();
    const repairs = new Map<string, TextDeltaRepair>();
    const takenIds = toolCallIdsOf(state.messages);
    let finishReason: string | undefined;
    ctx.lastText = '';
    const endText = (id: string) => {
      const rest = repairs.get(id)?.end();
      if (rest) {
        texts.set(id, texts.get(id)! + rest);
        this.emit(ctx, 'text-delta', { id, text: rest });
      }
      repairs.delete(id);
      this.emit(ctx, 'text-end', { id });
      const text = texts.get(id)!;
      if (text) {
        content.push({ type: 'text', text });
        ctx.lastText += text;
      }
    };
    try {
      for await (const part of result.fullStream) {
        switch (part.type) {
          case 'text-start': {
            const id = `${ctx.run.id.slice(0, 8)}-t${state.textPartCounter++}`;
            textIds.set(part.id, id);
            texts.set(id, '');
            repairs.set(id, new TextDeltaRepair());
            this.emit(ctx, 'text-start', { id });
            break;
          }
          case 'text-delta': {
            const id = textIds.get(part.id);
            if (!id || !part.text) break;
            const text = repairs.get(id)!.push(part.text);
            if (!text) break;
            texts.set(id, texts.get(id)! + text);
            this.emit(ctx, 'text-delta', { id, text });
            break;
          }
          case 'text-end': {
            const id = textIds.get(part.id);
            if (id && repairs.has(id)) endText(id);
            break;
          }
          case 'tool-call': {
            const toolCallId = safeToolCallId(part.toolCallId, takenIds);
            takenIds.add(toolCallId);
            const known = this.tools.has(part.toolName);
            const toolName = safeToolName(part.toolName, known);
            const unparsed = part.invalid === true && !NoSuchToolError.isInstance(part.error);
            const checked = checkToolArgs(part.input, { unparsed });
            if (checked.ok) {
              calls.push({ toolCallId, toolName, args: checked.args });
            } else {
              calls.push({ toolCallId, toolName, args: checked.shown });
              refused.set(toolCallId, checked.problem);
            }
            if (!known && toolName !== part.toolName) {
              refused.set(toolCallId, `There is no tool named ${JSON.stringify(storablePreview(part.toolName))}; nothing was run.`);
            }
            // The history keeps what every provider can replay: an object (Anthropic requires one).
            const replayable = checked.ok && isPlainObject(checked.args) ? checked.args : {};
            content.push({ type: 'tool-call', toolCallId, toolName, input: replayable });
            break;
          }
          case 'finish-step':
            finishReason = part.finishReason;
            break;
          case 'error':
            throw part.error;
          default:
            break;
        }
      }
    } catch (error) {
      // Close what was streaming, so the partial answer shows as text (live and after a reload).
      for (const id of [...repairs.keys()]) endText(id);
      throw error instanceof ModelCallError ? error : new ModelCallError(classifyModelError(error), { cause: error });
    }
    for (const id of [...repairs.keys()]) endText(id);
    // A stream that stopped without its finish (a cut connection) is not an answer.
    if ((finishReason === 'interrupted' || finishReason === 'error') && calls.length === 0) {
      throw new ModelCallError(ANSWER_BROKE_OFF);
    }
    if (content.length > 0) state.messages.push({ role: 'assistant', content });
    const declined = finishReason === 'content-filter';
    if (declined) {
      this.emit(ctx, 'error', { message: 'The model declined to answer this request (its provider’s content filter).', code: 'MODEL_REFUSED' });
    }
    return { calls, refused, declined };
  }

  /** Records a call's outcome (made storable: a tool may return anything) and emits its result chunk. */
  private settle(ctx: RunContext, call: StepCall, unsafe: CallOutcome) {
    const outcome = storableOutcome(unsafe);
    call.outcome = outcome;
    const base = { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
    if (outcome.type === 'result') this.emit(ctx, 'tool-result', { ...base, result: outcome.output });
    else if (outcome.type === 'error') this.emit(ctx, 'tool-error', { ...base, error: outcome.message });
    else this.emit(ctx, 'tool-output-denied', { ...base, approval: { approved: false, reason: outcome.reason } });
  }

  /** Executes one call (hooks, delegation, suspend, output validation); emits its result unless it waits. */
  private async execute(ctx: RunContext, tool: Tool, call: StepCall, resume: { resumeData?: unknown; suspendPayload?: unknown }): Promise<ExecutionOutcome> {
    const outcome = await this.executeRaw(ctx, tool, call, resume);
    if ('outcome' in outcome) this.settle(ctx, call, outcome.outcome);
    return outcome;
  }

  private async executeRaw(ctx: RunContext, tool: Tool, call: StepCall, resume: { resumeData?: unknown; suspendPayload?: unknown }): Promise<ExecutionOutcome> {
    try {
      const hook = await this.hooks.beforeToolCall?.({ toolName: tool.id, input: call.args, toolCallId: call.toolCallId, runId: ctx.run.id });
      if (hook && hook.proceed === false) return { outcome: { type: 'result', output: hook.output } };
      const sub = this.delegates.get(tool.id);
      if (sub) return await this.delegate(ctx, sub, call);
      const value = await tool.execute(call.args, {
        agent: { suspend: makeSuspendSignal, resumeData: resume.resumeData, suspendPayload: resume.suspendPayload },
        runId: ctx.run.id,
        toolCallId: call.toolCallId,
        threadId: ctx.run.threadId,
        resourceId: ctx.run.resourceId,
        requestContext: ctx.state.requestContext,
        abortSignal: ctx.abortSignal,
      });
      if (isSuspendSignal(value)) {
        const payload = tool.suspendSchema ? tool.suspendSchema.safeParse(value.payload) : { success: true as const, data: value.payload };
        if (!payload.success) return { outcome: { type: 'error', message: 'The tool suspended with an invalid payload.' } };
        const storable = storableValue(payload.data);
        if (!storable.ok) return { outcome: { type: 'error', message: storable.problem } };
        return { suspended: storable.value };
      }
      if (tool.outputSchema) {
        const parsed = tool.outputSchema.safeParse(value);
        if (!parsed.success) return { outcome: { type: 'error', message: 'The tool returned an invalid result.' } };
        return { outcome: { type: 'result', output: parsed.data } };
      }
      return { outcome: { type: 'result', output: value ?? null } };
    } catch (error) {
      return { outcome: { type: 'error', message: error instanceof Error ? error.message : String(error) } };
    }
  }

  /**
   * Runs a sub-agent as a child run (behaviour §4). The parent's `waiting` delegation row is written
   * before the child starts, so a decision on the child can never finish before its parent knows
   * to wait for it.
   *
   * @returns the child's answer, or `delegated: 'waiting'` when the child paused
   */
  private async delegate(ctx: RunContext, sub: Agent, call: StepCall): Promise<ExecutionOutcome> {
    const { prompt } = call.args as { prompt: string };
    const lineage = ctx.state.lineage;
    const childRunId = randomUUID();
    const childState = sub.initialState({
      messages: [{ role: 'user', content: prompt }],
      historyLength: 1,
      requestContext: ctx.state.requestContext,
      lineage: {
        rootRunId: lineage.rootRunId,
        rootMessageId: lineage.rootMessageId,
        rootToolCallId: lineage.rootToolCallId ?? call.toolCallId,
        delegationCallId: qualifiedCallId(delegationCallIdOf(lineage), call.toolCallId),
        parentToolCallId: call.toolCallId,
        chain: [...lineage.chain, sub.id],
      },
    });
    const child: RunRecord = {
      id: childRunId,
      threadId: ctx.run.threadId,
      resourceId: ctx.run.resourceId,
      requestedBy: ctx.run.requestedBy,
      agentId: sub.id,
      parentRunId: ctx.run.id,
      messageId: randomUUID(),
      status: 'running',
      state: childState,
    };
    await this.store.startChildRun({
      run: child,
      delegation: { ...this.pendingBase(ctx, this.requireTool(call.toolName), call), kind: 'delegation', policy: 'delegation', suspendPayload: null, resumeSchema: '{}', childRunId },
    });
    const childCtx = sub.context(ctx.segment, child, childState, { abortSignal: ctx.abortSignal });
    sub.emit(childCtx, 'start', { messageId: child.messageId, threadId: child.threadId });
    const result = await sub.runSteps(childCtx);
    if (result.status === 'suspended') return { delegated: 'waiting' };
    const outcome: CallOutcome = { type: 'result', output: { text: result.text } };
    await this.store.closeDelegation({ childRunId, status: 'completed', output: outcome });
    return { outcome };
  }

  private pendingRow(
    ctx: RunContext,
    tool: Tool,
    call: StepCall,
    what: { kind: 'approval'; policy: string } | { kind: 'suspension'; payload: unknown },
  ): NewPendingCall {
    const base = this.pendingBase(ctx, tool, call);
    if (what.kind === 'approval') {
      return { ...base, kind: 'approval', policy: what.policy, suspendPayload: null, resumeSchema: APPROVAL_RESUME_SCHEMA, childRunId: null };
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

  private pendingBase(ctx: RunContext, tool: Tool, call: StepCall) {
    const { lineage } = ctx.state;
    return {
      id: randomUUID(),
      runId: ctx.run.id,
      toolCallId: call.toolCallId,
      toolName: tool.id,
      args: call.args,
      fingerprint: fingerprintToolCall({ toolName: tool.id, args: call.args }),
      approvers: tool.approvers,
      threadId: ctx.run.threadId,
      resourceId: ctx.run.resourceId,
      requestedBy: ctx.run.requestedBy,
      agentId: this.id,
      chain: [...lineage.chain, tool.id],
      rootRunId: lineage.rootRunId,
      rootToolCallId: qualifiedCallId(delegationCallIdOf(lineage), call.toolCallId),
    };
  }

  /**
   * Save, then publish (behaviour §1): the run's state and its new pending rows commit before their
   * chunks reach anyone. When the step waits only on children that have all finished meanwhile (a
   * decision on a child can complete it before this pause), the same statement hands the run back
   * and this pause continues it.
   *
   * @returns true when the pause found everything decided and the step's results appended
   */
  private async pause(ctx: RunContext, waiting: NewPendingCall[]): Promise<boolean> {
    const chunks = waiting.map((row) => pendingChunk(ctx.run.id, row));
    const finish = ctx.isTop ? [makeChunk(ctx.run.id, 'finish', { finishReason: 'suspended' })] : [];
    const continues = await this.withEvents(ctx, (events) =>
      this.store.suspendRun({ runId: ctx.run.id, state: ctx.state, pendingCalls: waiting, events: [...events, ...chunks], finalEvents: finish }),
    );
    await this.surface(ctx, chunks);
    if (continues) {
      await this.resumeStep(ctx, { ...ctx.run, status: 'running', state: ctx.state });
      return true;
    }
    for (const chunk of finish) {
      ctx.segment.finished = true;
      ctx.segment.channel.push(chunk);
    }
    return false;
  }

  /**
   * The chunks that publish a decision at the top level: the segment's `start`, then
   * `tool-call-resumed` (a sub-agent's re-addressed to the top-level run under its qualified id).
   * @returns `top` for the top-level run's log; `own` for the row's run's log when that is a sub-agent's
   */
  private decisionChunks(top: { id: string; messageId: string }, row: PendingCall, decision: DecisionSummary): { top: AgentChunk[]; own: AgentChunk | null } {
    const resumed = makeChunk(row.runId, 'tool-call-resumed', {
      toolCallId: row.toolCallId,
      toolName: row.toolName,
      kind: row.kind === 'suspension' ? 'suspension' : 'approval',
      args: row.args,
      ...(row.kind === 'suspension' ? { suspendPayload: row.suspendPayload } : {}),
      resumeSchema: row.resumeSchema,
      fingerprint: row.fingerprint,
      approvers: row.approvers,
      chain: row.chain,
      decision,
    });
    const start = makeChunk(top.id, 'start', { messageId: top.messageId, threadId: row.threadId });
    if (row.runId === top.id) return { top: [start, resumed], own: null };
    return { top: [start, ...readdress([resumed], row.rootRunId, () => row.rootToolCallId)], own: resumed };
  }

  /**
   * After a claim: publish the decision, run (or skip) the tool, close the row, and continue the
   * run when this was its step's last open call — then, when the run ends, its parents in turn.
   * Closing the row decides, in the same statement, who continues: exactly one closer per run.
   *
   * @param options.saved whether the claim already wrote the decision's chunks to the log
   */
  private async continueAfterClaim(segment: Segment, claimed: Claimed, decision: ContinueDecision, options: { saved: boolean }) {
    const { call: row, run } = claimed;
    if (!run.state) throw new AgentError('NO_SNAPSHOT_FOUND', `No paused run ${row.runId}.`);
    const ctx = this.context(segment, run, run.state);
    const chunks = this.decisionChunks({ id: segment.topRunId, messageId: segment.topMessageId }, row, decision.decision);
    if (chunks.own) ctx.unsaved.push(chunks.own);
    // Save, then publish, here too: a reload or a crash while the tool runs still shows the decision.
    if (!options.saved) await this.store.appendEvents({ runId: segment.topRunId, chunks: chunks.top });
    for (const chunk of chunks.top) segment.channel.push(chunk);

    const call: StepCall = { toolCallId: row.toolCallId, toolName: row.toolName, args: decision.args };
    let next: RunRecord | null;
    if (!decision.approved) {
      this.settle(ctx, call, { type: 'denied', reason: decision.reason ?? DEFAULT_DECLINE_REASON });
      next = await this.withEvents(ctx, (events) =>
        this.store.closePendingCall({ pendingCallId: row.id, runId: run.id, status: 'declined', output: call.outcome!, events }),
      );
    } else {
      const tool = this.requireTool(row.toolName);
      const result = await this.execute(ctx, tool, call, {
        resumeData: decision.resumeData,
        suspendPayload: row.kind === 'suspension' ? row.suspendPayload : undefined,
      });
      if ('suspended' in result) {
        // Suspended again (e.g. a validation loop): a new pending suspension replaces this one.
        const again = this.pendingRow(ctx, tool, call, { kind: 'suspension', payload: result.suspended });
        const chunk = pendingChunk(ctx.run.id, again);
        await this.withEvents(ctx, (events) =>
          this.store.closePendingCall({ pendingCallId: row.id, runId: run.id, status: 'superseded', output: null, events: [...events, chunk], newPendingCall: again }),
        );
        await this.surface(ctx, [chunk]);
        return;
      }
      const outcome = 'outcome' in result ? result.outcome : null;
      // Without an outcome, an approved delegation now waits on its child run (which may even have finished).
      next = await this.withEvents(ctx, (events) =>
        this.store.closePendingCall({
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
    const closed = this.delegates.has(row.toolName) ? undefined : { ...row, args: call.args, output: call.outcome ?? null };
    await this.resumeStep(ctx, next, closed);
    await this.continueRun(ctx);
  }

  /**
   * Fills the step's outcomes from the run's closed rows and appends them for the model.
   * @param closed the row the caller just closed: when it is the step's only open call, its rows need no read
   */
  private async resumeStep(ctx: RunContext, run: RunRecord, closed?: PendingCall) {
    ctx.run = run;
    ctx.state = run.state!;
    const open = ctx.state.stepCalls.filter((stepCall) => !stepCall.outcome);
    const known = closed?.output && open.every((stepCall) => stepCall.toolCallId === closed.toolCallId);
    const rows = known ? [closed] : await this.store.listPendingCalls({ runId: run.id });
    for (const stepCall of ctx.state.stepCalls) {
      if (stepCall.outcome) continue;
      const last = rows.filter((candidate) => candidate.toolCallId === stepCall.toolCallId && candidate.output).at(-1);
      const outcome = last?.output ?? { type: 'error' as const, message: 'The call ended without a result.' };
      if (last) stepCall.args = last.args;
      // A decided call's result was emitted by its decider; a delegation's result is this run's to emit.
      if (!last || last.kind === 'delegation') this.settle(ctx, stepCall, outcome);
      else stepCall.outcome = outcome;
    }
    this.appendToolResults(ctx.state, ctx.state.stepCalls);
    this.emit(ctx, 'step-finish', { step: ctx.state.step, finishReason: 'tool-calls' });
    ctx.state.step += 1;
  }

  /** Runs a continued run's remaining steps; when a child run completes, its parent continues. */
  private async continueRun(ctx: RunContext): Promise<void> {
    let agent: Agent = this;
    let current = ctx;
    for (;;) {
      const result = await agent.runSteps(current);
      if (result.status !== 'completed' || current.isTop) return;
      const parent = await this.store.closeDelegation({ childRunId: current.run.id, status: 'completed', output: { type: 'result', output: { text: result.text } } });
      if (!parent?.state) return;
      const parentAgent = current.segment.root.findAgent(parent.agentId);
      if (!parentAgent) throw new Error(`No agent ${parent.agentId} under ${current.segment.root.id}`);
      const parentCtx = parentAgent.context(current.segment, parent, parent.state);
      await parentAgent.resumeStep(parentCtx, parent);
      agent = parentAgent;
      current = parentCtx;
    }
  }

  /** Adds the step's tool results to the prompt; a decline reaches the model as the reason text. */
  private appendToolResults(state: RunState, calls: StepCall[]) {
    state.messages.push({
      role: 'tool',
      content: calls.map((call) => ({
        type: 'tool-result' as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: toModelOutput(call.outcome!),
      })),
    });
    state.stepCalls = [];
  }

  private async finish(ctx: RunContext) {
    return this.withEvents(ctx, (events) =>
      this.store.finishRun({ runId: ctx.run.id, status: 'completed', events, newMessages: ctx.state.messages.slice(ctx.state.historyLength) }),
    );
  }
}

/**
 * Four-eyes: a reviewer-only call may be decided only by a reviewer or admin who is neither the
 * run's requester (the identity that started it) nor the resource it runs for. The store's claim
 * applies the same rule in SQL. Source: behaviour §2 "Who may decide".
 * @throws AgentError FOUR_EYES
 */
function authorize(row: PendingCall, actor: Actor) {
  if (row.approvers !== 'reviewer') return;
  if (actor.role === 'user' || actor.id === row.requestedBy || actor.id === row.resourceId) {
    throw new AgentError('FOUR_EYES', 'This action needs a reviewer other than the person who asked for it.');
  }
}

/**
 * A sub-agent's pause or decision chunks, addressed to the top-level run under each call's qualified
 * id (behaviour §4, call-id.ts); the call's own id stays as `leafToolCallId`.
 * @param qualify the qualified id of a call of the sub-agent's run, from its own id
 */
function readdress(chunks: AgentChunk[], rootRunId: string, qualify: (toolCallId: string) => string): AgentChunk[] {
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
function delegationCallIdOf(lineage: Lineage): string | null {
  return lineage.delegationCallId !== undefined ? lineage.delegationCallId : lineage.rootToolCallId;
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
function waitingTurns(waiting: { runId: string; state: RunState }[], open: PendingCall[]): ModelMessage[] {
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
function alreadyPending(twin: NewPendingCall): CallOutcome {
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

function pendingChunk(runId: string, row: NewPendingCall): AgentChunk {
  const base = { toolCallId: row.toolCallId, toolName: row.toolName, args: row.args, chain: row.chain };
  if (row.kind === 'approval') {
    return makeChunk(runId, 'tool-call-approval', {
      ...base,
      resumeSchema: row.resumeSchema,
      fingerprint: row.fingerprint,
      policy: row.policy,
      approvers: row.approvers,
    });
  }
  return makeChunk(runId, 'tool-call-suspended', { ...base, suspendPayload: row.suspendPayload, resumeSchema: row.resumeSchema });
}

function storablePolicy(policy: RequestApprovalPolicy | undefined): RunState['requestApproval'] {
  if (policy === true) return 'always';
  if (typeof policy === 'function') return 'function';
  return 'never';
}

/** The request policy for steps after a continuation; an unavailable function fails closed. */
function storedPolicy(stored: RunState['requestApproval'] | undefined): RequestApprovalPolicy | undefined {
  return stored === 'always' || stored === 'function' ? true : undefined;
}

function alreadyDecided(row: PendingCall): AgentError {
  const outcome = row.status === 'declined' ? 'declined' : row.kind === 'suspension' ? 'answered' : 'approved';
  return new AgentError('ALREADY_DECIDED', `This call was already ${outcome}.`, {
    outcome,
    status: row.status,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    reason: row.decisionReason,
  });
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

/** Ids of every tool call in `messages` (a new call must not reuse one: results are matched by id). */
function toolCallIdsOf(messages: ModelMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if ((message.role !== 'assistant' && message.role !== 'tool') || typeof message.content === 'string') continue;
    for (const part of message.content) if ('toolCallId' in part) ids.add(part.toolCallId);
  }
  return ids;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An outcome PostgreSQL can store: results repaired (or an error when they cannot be), texts repaired. */
function storableOutcome(outcome: CallOutcome): CallOutcome {
  switch (outcome.type) {
    case 'result': {
      const storable = storableValue(outcome.output);
      return storable.ok ? { type: 'result', output: storable.value } : { type: 'error', message: storable.problem };
    }
    case 'error':
      return { type: 'error', message: storableText(outcome.message) };
    case 'denied':
      return { type: 'denied', reason: storableText(outcome.reason) };
  }
}

/**
 * Refuses input that could not be stored or replayed, before anything is written: a system (or
 * tool) message stored in a thread makes every later turn fail at the provider ("System messages
 * are not allowed in the prompt"), and NUL or a lone surrogate cannot be stored at all.
 * @throws AgentError BAD_REQUEST, INVALID_INPUT
 */
function checkInput(input: string | ModelMessage[]) {
  const messages: ModelMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  if (messages.length === 0) throw new AgentError('BAD_REQUEST', 'Send at least one message.');
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'user' && message.role !== 'assistant') {
      throw new AgentError(
        'BAD_REQUEST',
        `Message ${index + 1} has role "${message.role}": only user and assistant messages can be stored in a thread (the agent's instructions are its system prompt).`,
        { index, role: message.role },
      );
    }
  }
  if (containsUnstorableText(messages)) {
    throw new AgentError('INVALID_INPUT', 'The input contains a NUL character or broken Unicode (a lone surrogate).');
  }
}
