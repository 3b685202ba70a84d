import { randomUUID } from 'node:crypto';
import { generateText, jsonSchema, Output, streamText, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import type { AgentChunk, ChunkPayloads, ChunkType, DecisionSummary } from './chunks';
import { AgentError } from './errors';
import { fingerprintToolCall } from './fingerprint';
import { approvalReason, type RequestApprovalPolicy } from './policy';
import type {
  AgentStore,
  CallOutcome,
  NewPendingCall,
  PendingCall,
  RunRecord,
  RunState,
  StepCall,
  SuspendedRunsQuery,
} from './store';
import { isSuspendSignal, makeSuspendSignal, type Actor, type RequestContext, type Tool } from './tool';

/** Text the model receives for a decline without a reason. Source: SPEC §2 "Decline". */
export const DEFAULT_DECLINE_REASON = 'Tool call was not approved by the user';

/** JSON Schema (string) of an approval decision. Source: SPEC §1 "Stream chunks". */
export const APPROVAL_RESUME_SCHEMA = JSON.stringify(
  z.toJSONSchema(z.object({ approved: z.boolean(), reason: z.string().optional() })),
);

const DEFAULT_MAX_STEPS = 8;

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
  /** Where runs, pending calls, events and memory live. */
  store: AgentStore;
  defaultOptions?: AgentDefaultOptions;
  hooks?: AgentHooks;
}

export interface StreamOptions {
  threadId: string;
  resourceId: string;
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
   * auto-resume. Source: SPEC §3.
   */
  autoResumeSuspendedTools?: boolean;
}

/** The result of `generate()` and the `*Generate` continuations. Source: SPEC §1. */
export interface GenerateResult {
  runId: string;
  text: string;
  finishReason: ChunkPayloads['finish']['finishReason'];
  toolCalls: { toolCallId: string; toolName: string; args: unknown }[];
  toolResults: { toolCallId: string; toolName: string; args: unknown; result: unknown }[];
  /** The calls waiting on a person when `finishReason` is `suspended`. */
  suspendedToolCalls: {
    toolCallId: string;
    toolName: string;
    args: unknown;
    requiresApproval: boolean;
    suspendPayload?: unknown;
    resumeSchema: string;
    chain?: string[];
  }[];
  /** The first waiting call's payload: the tool's own, or `{ toolCallId, toolName, args }` for an approval. */
  suspendPayload?: unknown;
  resumeSchema?: string;
}

/** One suspended run as `listSuspendedRuns` returns it. Source: SPEC §1. */
export interface SuspendedRun {
  runId: string;
  status: 'suspended';
  threadId: string;
  resourceId: string;
  suspendedAt: string;
  toolCalls: { toolCallId: string; toolName: string; args: unknown; requiresApproval: boolean; suspendPayload?: unknown; chain: string[] }[];
}

/** What `stream()` and every continuation return. The run proceeds even if nobody reads the streams. */
export interface AgentStreamResult {
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
  runId: string;
  toolCallId?: string;
  actor: Actor;
  /** The fingerprint the decider saw; a mismatch is refused (FINGERPRINT_MISMATCH). */
  fingerprint?: string;
}

/** Chunk fan-out for one segment of a run: buffers every chunk so late readers replay from the start. */
class ChunkChannel {
  private readonly chunks: AgentChunk[] = [];
  private readonly listeners = new Set<() => void>();
  closed = false;

  push(chunk: AgentChunk) {
    this.chunks.push(chunk);
    this.notify();
  }

  close() {
    this.closed = true;
    this.notify();
  }

  private notify() {
    for (const listener of this.listeners) listener();
  }

  /** A new stream over all chunks so far and to come; cancelling it leaves the run going. */
  readable(): ReadableStream<AgentChunk> {
    let index = 0;
    let listener: (() => void) | undefined;
    return new ReadableStream<AgentChunk>({
      pull: (controller) =>
        new Promise<void>((resolve) => {
          const drain = () => {
            if (index < this.chunks.length) {
              controller.enqueue(this.chunks[index++]);
            } else if (this.closed) {
              controller.close();
            } else {
              return false;
            }
            return true;
          };
          if (drain()) return resolve();
          listener = () => {
            if (drain()) {
              this.listeners.delete(listener!);
              resolve();
            }
          };
          this.listeners.add(listener);
        }),
      cancel: () => {
        if (listener) this.listeners.delete(listener);
      },
    });
  }
}

/** Per-segment context of the step loop. */
interface RunContext {
  run: RunRecord;
  state: RunState;
  requestPolicy?: RequestApprovalPolicy;
  abortSignal?: AbortSignal;
  /** Chunks not yet written to the event log. */
  unsaved: AgentChunk[];
  /** Publishes a chunk and queues it for the event log. */
  emit: <T extends ChunkType>(type: T, payload: ChunkPayloads[T]) => AgentChunk;
  /** Builds a chunk without publishing it (for save-then-publish). */
  make: <T extends ChunkType>(type: T, payload: ChunkPayloads[T]) => AgentChunk;
  publish: (chunk: AgentChunk) => void;
  takeUnsaved: () => AgentChunk[];
}

type ExecutionOutcome = { outcome: CallOutcome } | { suspended: unknown };

/**
 * An agent whose tool calls can pause for a person before they run, and whose tools can suspend.
 * Source: SPEC §1 "Agents". Route handlers wrap it; it knows no HTTP and no database client.
 */
export class Agent {
  readonly id: string;
  readonly name: string;
  readonly instructions: string;
  readonly model: LanguageModel;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly defaultOptions: AgentDefaultOptions;
  private readonly store: AgentStore;
  private readonly hooks: AgentHooks;

  constructor(config: AgentConfig) {
    this.id = config.id;
    this.name = config.name;
    this.instructions = config.instructions;
    this.model = config.model;
    this.tools = new Map(config.tools.map((tool) => [tool.id, tool]));
    this.store = config.store;
    this.defaultOptions = config.defaultOptions ?? {};
    this.hooks = config.hooks ?? {};
  }

  /**
   * Starts a run on a thread with a new user message and streams it.
   *
   * @param input the user's message text, or model messages to add
   * @param options thread, resource (owner) and per-request options
   * @returns the stream result; the run goes on in the background whether or not it is read
   */
  async stream(input: string | ModelMessage[], options: StreamOptions): Promise<AgentStreamResult> {
    const { threadId, resourceId } = options;
    const autoResume = options.autoResumeSuspendedTools ?? this.defaultOptions.autoResumeSuspendedTools ?? false;
    if (autoResume && typeof input === 'string') {
      const resumed = await this.tryAutoResume(input, options);
      if (resumed) return resumed;
    }
    await this.store.ensureThread({
      threadId,
      resourceId,
      agentId: this.id,
      title: typeof input === 'string' ? input.slice(0, 80) : undefined,
    });
    const history = await this.store.loadHistory({ threadId });
    const newMessages: ModelMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
    const state: RunState = {
      messages: [...history, ...newMessages],
      step: 0,
      maxSteps: options.maxSteps ?? this.defaultOptions.maxSteps ?? DEFAULT_MAX_STEPS,
      stepCalls: [],
      historyLength: history.length + newMessages.length,
      requestContext: options.requestContext ?? {},
      textPartCounter: 0,
      requestApproval: storablePolicy(options.requireToolApproval),
    };
    const run: RunRecord = {
      id: randomUUID(),
      threadId,
      resourceId,
      agentId: this.id,
      parentRunId: null,
      messageId: options.messageId ?? randomUUID(),
      status: 'running',
      state,
    };
    const userMessage = newMessages.length === 1 ? { id: randomUUID(), message: newMessages[0] } : undefined;
    await this.store.createRun({ run, userMessage });
    return this.launch(run, state, { requestPolicy: options.requireToolApproval, abortSignal: options.abortSignal }, (ctx) =>
      this.runSteps(ctx),
    );
  }

  /**
   * Approves a pending call; it executes once with the stored args (or `args`, validated against the
   * tool's `inputSchema`, when a reviewer edits them), then the run continues.
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
    const { run, row } = await this.findOpenCall(input);
    if (row.kind !== 'suspension') throw new AgentError('WRONG_KIND', 'This call waits for an approval, not for data.');
    const tool = this.requireTool(row.toolName);
    this.authorize(row, input.actor);
    if (input.fingerprint && input.fingerprint !== row.fingerprint) {
      throw new AgentError('FINGERPRINT_MISMATCH', 'The call changed since it was shown.');
    }
    const parsed = (tool.resumeSchema ?? z.unknown()).safeParse(resumeData);
    if (!parsed.success) {
      throw new AgentError('INVALID_RESUME_DATA', 'The answer does not match what the tool asked for.', parsed.error.issues);
    }
    const claimed = await this.claim(row, input.actor, {
      status: 'resumed',
      reason: null,
      resumeData: parsed.data,
      args: row.args,
      fingerprint: row.fingerprint,
      kind: 'resume',
      approved: null,
    });
    return this.launch(run, run.state!, {}, (ctx) =>
      this.continueAfterClaim(ctx, claimed, {
        approved: true,
        args: row.args,
        resumeData: parsed.data,
        decision: { by: input.actor.id, at: new Date().toISOString(), resumeData: parsed.data },
      }),
    );
  }

  /**
   * Like `stream()`, but waits for the segment to end and returns its result.
   * @returns `finishReason: 'suspended'` with `suspendedToolCalls` when a call waits on a person
   */
  async generate(input: string | ModelMessage[], options: StreamOptions): Promise<GenerateResult> {
    return summarise(await this.stream(input, options));
  }

  /** `approveToolCall`, returning the continuation's full result. */
  async approveToolCallGenerate(input: DecisionInput & { args?: unknown }): Promise<GenerateResult> {
    return summarise(await this.approveToolCall(input));
  }

  /** `declineToolCall`, returning the continuation's full result. */
  async declineToolCallGenerate(input: DecisionInput & { reason?: string }): Promise<GenerateResult> {
    return summarise(await this.declineToolCall(input));
  }

  /** `resumeStream`, returning the continuation's full result. */
  async resumeGenerate(resumeData: unknown, input: DecisionInput): Promise<GenerateResult> {
    return summarise(await this.resumeStream(resumeData, input));
  }

  /**
   * This agent's runs that wait on a person, newest first, read from the pending-call table.
   * Paginated only when both `page` (from 0) and `perPage` are given.
   *
   * @param query.fromDate / query.toDate bounds on when the run was suspended
   * @returns `{ runs, total }` where total counts all matching runs
   */
  async listSuspendedRuns(query: Omit<SuspendedRunsQuery, 'agentId'> = {}): Promise<{ runs: SuspendedRun[]; total: number }> {
    const { runs, total } = await this.store.listSuspendedRuns({ ...query, agentId: this.id });
    return {
      total,
      runs: runs.map(({ run, suspendedAt, calls }) => ({
        runId: run.id,
        status: 'suspended' as const,
        threadId: run.threadId,
        resourceId: run.resourceId,
        suspendedAt: suspendedAt.toISOString(),
        toolCalls: calls.map((call) => ({
          toolCallId: call.toolCallId,
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
    const open = (await this.store.findOpenPendingCalls({ threadId: input.threadId, resourceId: input.resourceId })).filter(
      (row) => row.agentId === this.id && (input.toolCallId === undefined || row.toolCallId === input.toolCallId),
    );
    if (open.length === 0) throw new AgentError('TOOL_CALL_NOT_SUSPENDED', 'Nothing is waiting on this thread.');
    if (open.length > 1) {
      throw new AgentError('AMBIGUOUS_TOOL_CALL', 'Several calls are waiting; say which toolCallId.', {
        toolCallIds: open.map((row) => row.toolCallId),
      });
    }
    const [row] = open;
    const target = { runId: row.runId, toolCallId: row.toolCallId, actor: input.actor };
    let continuation: AgentStreamResult;
    if (row.kind === 'suspension') {
      if (!input.approved) throw new AgentError('WRONG_KIND', 'This call asks for data; send resumeData.');
      continuation = await this.resumeStream(input.resumeData, target);
    } else if (input.approved) {
      continuation = await this.approveToolCall(target);
    } else {
      continuation = await this.declineToolCall({ ...target, reason: input.reason });
    }
    return { accepted: true, runId: row.runId, toolCallId: row.toolCallId, continuation };
  }

  /**
   * Auto-resume (SPEC §3): the thread's single pending suspension is answered by `text` when the
   * model can extract data that passes the tool's `resumeSchema`. The superseded suspension is
   * closed by the claim, so it can never be answered twice.
   *
   * @returns the continuation, or null when nothing was resumed (the message starts a new run)
   */
  private async tryAutoResume(text: string, options: StreamOptions): Promise<AgentStreamResult | null> {
    const open = (await this.store.findOpenPendingCalls({ threadId: options.threadId, resourceId: options.resourceId })).filter(
      (row) => row.agentId === this.id,
    );
    // Approvals are never auto-resumed; with several questions open, guessing which is answered is not safe.
    if (open.length !== 1 || open[0].kind !== 'suspension') return null;
    const [row] = open;
    const tool = this.tools.get(row.toolName);
    if (!tool?.resumeSchema) return null;
    const extracted = await extractResumeData({ model: this.model, schema: tool.resumeSchema, text, suspendPayload: row.suspendPayload });
    if (extracted === undefined) return null;
    const run = await this.store.loadRun({ runId: row.runId });
    if (!run?.state) return null;
    await this.store.addUserMessage({ threadId: options.threadId, runId: run.id, message: { role: 'user', content: text } });
    const actor: Actor = { id: options.resourceId, role: 'user' };
    const claimed = await this.claim(row, actor, {
      status: 'resumed',
      reason: null,
      resumeData: extracted,
      args: row.args,
      fingerprint: row.fingerprint,
      kind: 'resume',
      approved: null,
    });
    // A new assistant message follows the user's answer; the run itself continues where it paused.
    const segment: RunRecord = { ...run, messageId: options.messageId ?? randomUUID() };
    return this.launch(segment, run.state, {}, (ctx) =>
      this.continueAfterClaim(ctx, claimed, {
        approved: true,
        args: row.args,
        resumeData: extracted,
        decision: { by: actor.id, at: new Date().toISOString(), resumeData: extracted },
      }),
    );
  }

  private async decide(input: DecisionInput & { approved: boolean; reason?: string; args?: unknown }) {
    const { run, row } = await this.findOpenCall(input);
    if (row.kind !== 'approval') throw new AgentError('WRONG_KIND', 'This call asks for data, not for an approval.');
    const tool = this.requireTool(row.toolName);
    this.authorize(row, input.actor);
    if (input.fingerprint && input.fingerprint !== row.fingerprint) {
      throw new AgentError('FINGERPRINT_MISMATCH', 'The call changed since it was shown; look at it again.');
    }
    let args = row.args;
    let fingerprint = row.fingerprint;
    let edited = false;
    if (input.approved && input.args !== undefined) {
      const parsed = tool.inputSchema.safeParse(input.args);
      if (!parsed.success) throw new AgentError('INVALID_ARGS', 'The edited arguments are not valid for this tool.', parsed.error.issues);
      args = parsed.data;
      fingerprint = fingerprintToolCall({ toolName: row.toolName, args });
      edited = fingerprint !== row.fingerprint;
    }
    const reason = input.approved ? null : input.reason?.trim() || null;
    const claimed = await this.claim(row, input.actor, {
      status: input.approved ? 'approved' : 'declined',
      reason,
      resumeData: null,
      args: edited ? args : row.args,
      fingerprint: edited ? fingerprint : row.fingerprint,
      kind: input.approved ? 'approval' : 'decline',
      approved: input.approved,
      editedArgs: edited ? args : null,
      editedFingerprint: edited ? fingerprint : null,
    });
    return this.launch(run, run.state!, {}, (ctx) =>
      this.continueAfterClaim(ctx, claimed, {
        approved: input.approved,
        args,
        reason: reason ?? undefined,
        decision: {
          approved: input.approved,
          ...(reason ? { reason } : {}),
          by: input.actor.id,
          at: new Date().toISOString(),
        },
      }),
    );
  }

  private requireTool(toolName: string): Tool {
    const tool = this.tools.get(toolName);
    if (!tool) throw new AgentError('UNKNOWN_TOOL', `This agent has no tool ${toolName}.`);
    return tool;
  }

  /** Four-eyes: a reviewer-only tool refuses end users and the requester. Source: SPEC §2 "Who may decide". */
  private authorize(row: PendingCall, actor: Actor) {
    if (row.approvers !== 'reviewer') return;
    if (actor.role === 'user' || actor.id === row.resourceId) {
      throw new AgentError('FOUR_EYES', 'This action needs a reviewer other than the person who asked for it.');
    }
  }

  private async findOpenCall(input: DecisionInput): Promise<{ run: RunRecord; row: PendingCall }> {
    const run = await this.store.loadRun({ runId: input.runId });
    if (!run || !run.state || run.agentId !== this.id) {
      throw new AgentError('NO_SNAPSHOT_FOUND', `No paused run ${input.runId}.`);
    }
    const rows = await this.store.listPendingCalls({ runId: run.id });
    const open = rows.filter((row) => row.status === 'pending');
    if (input.toolCallId === undefined) {
      if (open.length === 1) return { run, row: open[0] };
      if (open.length > 1) {
        throw new AgentError('AMBIGUOUS_TOOL_CALL', 'Several calls are waiting; say which toolCallId.', {
          toolCallIds: open.map((row) => row.toolCallId),
        });
      }
      throw new AgentError('TOOL_CALL_NOT_SUSPENDED', 'Nothing is waiting in this run.');
    }
    const row = open.find((candidate) => candidate.toolCallId === input.toolCallId);
    if (row) return { run, row };
    const decided = rows.filter((candidate) => candidate.toolCallId === input.toolCallId).at(-1);
    if (decided) throw alreadyDecided(decided);
    throw new AgentError('TOOL_CALL_NOT_SUSPENDED', `Tool call ${input.toolCallId} is not waiting.`);
  }

  private async claim(
    row: PendingCall,
    actor: Actor,
    decision: {
      status: 'approved' | 'declined' | 'resumed';
      reason: string | null;
      resumeData: unknown;
      args: unknown;
      fingerprint: string;
      kind: 'approval' | 'decline' | 'resume';
      approved: boolean | null;
      editedArgs?: unknown;
      editedFingerprint?: string | null;
    },
  ): Promise<PendingCall> {
    const claimed = await this.store.claimPendingCall({
      pendingCallId: row.id,
      status: decision.status,
      decidedBy: actor.id,
      reason: decision.reason,
      resumeData: decision.resumeData,
      args: decision.args,
      fingerprint: decision.fingerprint,
      output: null,
      decision: {
        id: randomUUID(),
        kind: decision.kind,
        approved: decision.approved,
        reason: decision.reason,
        actorId: actor.id,
        actorRole: actor.role,
        fingerprint: row.fingerprint,
        args: row.args,
        editedArgs: decision.editedArgs ?? null,
        editedFingerprint: decision.editedFingerprint ?? null,
        resumeData: decision.resumeData ?? null,
      },
    });
    if (claimed) return claimed;
    const latest = (await this.store.listPendingCalls({ runId: row.runId })).find((candidate) => candidate.id === row.id);
    throw alreadyDecided(latest ?? row);
  }

  /** Runs `body` in the background and returns streams over what it emits. */
  private launch(
    run: RunRecord,
    state: RunState,
    options: { requestPolicy?: RequestApprovalPolicy; abortSignal?: AbortSignal },
    body: (ctx: RunContext) => Promise<void>,
  ): AgentStreamResult {
    const channel = new ChunkChannel();
    const make = <T extends ChunkType>(type: T, payload: ChunkPayloads[T]) =>
      ({ type, runId: run.id, from: 'AGENT', payload }) as AgentChunk;
    const ctx: RunContext = {
      run,
      state,
      requestPolicy: options.requestPolicy,
      abortSignal: options.abortSignal,
      unsaved: [],
      make,
      publish: (chunk) => channel.push(chunk),
      emit: (type, payload) => {
        const chunk = make(type, payload);
        ctx.unsaved.push(chunk);
        channel.push(chunk);
        return chunk;
      },
      takeUnsaved: () => coalesceTextDeltas(ctx.unsaved.splice(0)),
    };
    let text = '';
    let finishReason: ChunkPayloads['finish']['finishReason'] = 'other';
    const done = (async () => {
      ctx.emit('start', { messageId: run.messageId, threadId: run.threadId });
      try {
        await body(ctx);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        console.error(`[agent ${this.id}] run ${run.id} failed:`, error);
        ctx.emit('error', { message: 'The agent stopped because of an error. Try again.' });
        ctx.emit('finish', { finishReason: 'error' });
        await this.store
          .finishRun({ runId: run.id, status: 'failed', error: message, events: ctx.takeUnsaved(), newMessages: [] })
          .catch((storeError) => console.error(`[agent ${this.id}] could not mark run ${run.id} failed:`, storeError));
      }
    })().finally(() => channel.close());
    const summary = (async () => {
      const reader = channel.readable().getReader();
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        if (value.type === 'text-delta') text += value.payload.text;
        if (value.type === 'finish') finishReason = value.payload.finishReason;
      }
      await done;
    })();
    return {
      runId: run.id,
      messageId: run.messageId,
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

  /** The model/tool loop: one model step at a time until the model stops, a call pauses, or maxSteps. */
  private async runSteps(ctx: RunContext): Promise<void> {
    const { state } = ctx;
    for (;;) {
      if (state.step >= state.maxSteps) {
        ctx.emit('finish', { finishReason: 'length' });
        return this.finish(ctx, 'completed');
      }
      ctx.emit('step-start', { step: state.step });
      const calls = await this.modelStep(ctx);
      if (calls.length === 0) {
        ctx.emit('step-finish', { step: state.step, finishReason: 'stop' });
        state.step += 1;
        ctx.emit('finish', { finishReason: 'stop' });
        return this.finish(ctx, 'completed');
      }
      state.stepCalls = calls;
      const waiting: NewPendingCall[] = [];
      const toRun: StepCall[] = [];
      for (const call of calls) {
        ctx.emit('tool-call', { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args });
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
        call.args = parsed.data;
        const reason = await approvalReason({
          tool,
          args: call.args,
          requestContext: state.requestContext,
          requestPolicy: ctx.requestPolicy ?? storedPolicy(state.requestApproval),
          agentDefault: this.defaultOptions.requireToolApproval,
        });
        if (reason) waiting.push(this.pendingApproval(ctx.run, tool, call, reason));
        else toRun.push(call);
      }
      // Calls that need no approval run right away, even when others of the step wait.
      for (const call of toRun) {
        const tool = this.tools.get(call.toolName)!;
        const result = await this.execute(ctx, tool, call, {});
        if ('suspended' in result) waiting.push(this.pendingSuspension(ctx.run, tool, call, result.suspended));
      }
      if (waiting.length > 0) return this.pause(ctx, waiting);
      this.appendToolResults(state, calls);
      ctx.emit('step-finish', { step: state.step, finishReason: 'tool-calls' });
      state.step += 1;
      await this.store.saveRunState({ runId: ctx.run.id, state, events: ctx.takeUnsaved() });
    }
  }

  /** One model call through the AI SDK's streamText; tools are declared but executed by us. */
  private async modelStep(ctx: RunContext): Promise<StepCall[]> {
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
    });
    const calls: StepCall[] = [];
    const content: Exclude<ModelMessage & { role: 'assistant' }, { content: string }>['content'] = [];
    const textIds = new Map<string, string>();
    const texts = new Map<string, string>();
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-start': {
          const id = `${ctx.run.id.slice(0, 8)}-t${state.textPartCounter++}`;
          textIds.set(part.id, id);
          texts.set(id, '');
          ctx.emit('text-start', { id });
          break;
        }
        case 'text-delta': {
          const id = textIds.get(part.id);
          if (!id || !part.text) break;
          texts.set(id, texts.get(id)! + part.text);
          ctx.emit('text-delta', { id, text: part.text });
          break;
        }
        case 'text-end': {
          const id = textIds.get(part.id);
          if (!id) break;
          ctx.emit('text-end', { id });
          if (texts.get(id)) content.push({ type: 'text', text: texts.get(id)! });
          break;
        }
        case 'tool-call':
          calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, args: part.input });
          content.push({ type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
          break;
        case 'error':
          throw part.error;
        default:
          break;
      }
    }
    if (content.length > 0) state.messages.push({ role: 'assistant', content });
    return calls;
  }

  private settle(ctx: RunContext, call: StepCall, outcome: CallOutcome) {
    call.outcome = outcome;
    const base = { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
    if (outcome.type === 'result') ctx.emit('tool-result', { ...base, result: outcome.output });
    else if (outcome.type === 'error') ctx.emit('tool-error', { ...base, error: outcome.message });
    else ctx.emit('tool-output-denied', { ...base, approval: { approved: false, reason: outcome.reason } });
  }

  /** Executes one call (hooks, suspend, output validation) and emits its result chunk unless it suspends. */
  private async execute(
    ctx: RunContext,
    tool: Tool,
    call: StepCall,
    resume: { resumeData?: unknown; suspendPayload?: unknown },
  ): Promise<ExecutionOutcome> {
    const outcome = await this.executeRaw(ctx, tool, call, resume);
    if ('outcome' in outcome) this.settle(ctx, call, outcome.outcome);
    return outcome;
  }

  private async executeRaw(
    ctx: RunContext,
    tool: Tool,
    call: StepCall,
    resume: { resumeData?: unknown; suspendPayload?: unknown },
  ): Promise<ExecutionOutcome> {
    try {
      const hook = await this.hooks.beforeToolCall?.({
        toolName: tool.id,
        input: call.args,
        toolCallId: call.toolCallId,
        runId: ctx.run.id,
      });
      if (hook && hook.proceed === false) return { outcome: { type: 'result', output: hook.output } };
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
        return { suspended: payload.data };
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

  private pendingApproval(run: RunRecord, tool: Tool, call: StepCall, policy: string): NewPendingCall {
    return {
      ...this.pendingBase(run, tool, call),
      kind: 'approval',
      policy,
      suspendPayload: null,
      resumeSchema: APPROVAL_RESUME_SCHEMA,
    };
  }

  private pendingSuspension(run: RunRecord, tool: Tool, call: StepCall, payload: unknown): NewPendingCall {
    return {
      ...this.pendingBase(run, tool, call),
      kind: 'suspension',
      policy: 'suspend',
      suspendPayload: payload,
      resumeSchema: JSON.stringify(z.toJSONSchema(tool.resumeSchema ?? z.unknown())),
    };
  }

  private pendingBase(run: RunRecord, tool: Tool, call: StepCall) {
    return {
      id: randomUUID(),
      runId: run.id,
      toolCallId: call.toolCallId,
      toolName: tool.id,
      args: call.args,
      fingerprint: fingerprintToolCall({ toolName: tool.id, args: call.args }),
      approvers: tool.approvers,
      threadId: run.threadId,
      resourceId: run.resourceId,
      agentId: run.agentId,
      chain: [this.id, tool.id],
    };
  }

  /** Save, then publish: the pending rows commit before their chunks reach anyone. Source: SPEC §1. */
  private async pause(ctx: RunContext, waiting: NewPendingCall[]) {
    const chunks = waiting.map((row) => this.pendingChunk(ctx, row));
    const finish = ctx.make('finish', { finishReason: 'suspended' });
    await this.store.suspendRun({
      runId: ctx.run.id,
      state: ctx.state,
      pendingCalls: waiting,
      events: [...ctx.takeUnsaved(), ...chunks, finish],
    });
    for (const chunk of [...chunks, finish]) ctx.publish(chunk);
  }

  private pendingChunk(ctx: RunContext, row: NewPendingCall): AgentChunk {
    const base = { toolCallId: row.toolCallId, toolName: row.toolName, args: row.args, chain: row.chain };
    if (row.kind === 'approval') {
      return ctx.make('tool-call-approval', {
        ...base,
        resumeSchema: row.resumeSchema,
        fingerprint: row.fingerprint,
        policy: row.policy,
        approvers: row.approvers,
      });
    }
    return ctx.make('tool-call-suspended', { ...base, suspendPayload: row.suspendPayload, resumeSchema: row.resumeSchema });
  }

  /**
   * After a claim: emit `tool-call-resumed`, run (or skip) the tool, close the row, and continue the
   * run when this was the step's last open call. Exactly one continuation wins (acquireContinuation).
   */
  private async continueAfterClaim(
    ctx: RunContext,
    row: PendingCall,
    decision: { approved: boolean; args: unknown; reason?: string; resumeData?: unknown; decision: DecisionSummary },
  ) {
    ctx.emit('tool-call-resumed', {
      toolCallId: row.toolCallId,
      toolName: row.toolName,
      kind: row.kind,
      args: row.args,
      ...(row.kind === 'suspension' ? { suspendPayload: row.suspendPayload } : {}),
      resumeSchema: row.resumeSchema,
      fingerprint: row.fingerprint,
      approvers: row.approvers,
      chain: row.chain,
      decision: decision.decision,
    });
    const call: StepCall = { toolCallId: row.toolCallId, toolName: row.toolName, args: decision.args };
    if (!decision.approved) {
      this.settle(ctx, call, { type: 'denied', reason: decision.reason ?? DEFAULT_DECLINE_REASON });
      await this.store.closePendingCall({ pendingCallId: row.id, status: 'declined', output: call.outcome!, events: ctx.takeUnsaved() });
    } else {
      const tool = this.requireTool(row.toolName);
      const result = await this.execute(ctx, tool, call, {
        resumeData: decision.resumeData,
        suspendPayload: row.kind === 'suspension' ? row.suspendPayload : undefined,
      });
      if ('suspended' in result) {
        // Suspended again (e.g. a validation loop): a new pending suspension replaces this one.
        const next = this.pendingSuspension(ctx.run, tool, call, result.suspended);
        const chunk = this.pendingChunk(ctx, next);
        const finish = ctx.make('finish', { finishReason: 'suspended' });
        await this.store.closePendingCall({
          pendingCallId: row.id,
          status: 'superseded',
          output: null,
          events: [...ctx.takeUnsaved(), chunk, finish],
          newPendingCall: next,
        });
        ctx.publish(chunk);
        ctx.publish(finish);
        return;
      }
      await this.store.closePendingCall({
        pendingCallId: row.id,
        status: result.outcome.type === 'error' ? 'failed' : 'completed',
        output: result.outcome,
        events: ctx.takeUnsaved(),
      });
    }
    const run = await this.store.acquireContinuation({ runId: row.runId });
    if (!run || !run.state) {
      // Other calls of this step still wait; whoever decides the last one continues the run.
      const finish = ctx.emit('finish', { finishReason: 'suspended' });
      await this.store.appendEvents({ runId: row.runId, chunks: ctx.takeUnsaved() });
      void finish;
      return;
    }
    ctx.run = run;
    ctx.state = run.state;
    const rows = await this.store.listPendingCalls({ runId: run.id });
    for (const stepCall of ctx.state.stepCalls) {
      if (stepCall.outcome) continue;
      const closed = rows.filter((candidate) => candidate.toolCallId === stepCall.toolCallId && candidate.output).at(-1);
      stepCall.outcome = closed?.output ?? { type: 'error', message: 'The call ended without a result.' };
      if (closed) stepCall.args = closed.args;
    }
    this.appendToolResults(ctx.state, ctx.state.stepCalls);
    ctx.emit('step-finish', { step: ctx.state.step, finishReason: 'tool-calls' });
    ctx.state.step += 1;
    return this.runSteps(ctx);
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

  private finish(ctx: RunContext, status: 'completed' | 'failed') {
    return this.store.finishRun({
      runId: ctx.run.id,
      status,
      events: ctx.takeUnsaved(),
      newMessages: ctx.state.messages.slice(ctx.state.historyLength),
    });
  }
}

async function summarise(result: AgentStreamResult): Promise<GenerateResult> {
  const out: GenerateResult = {
    runId: result.runId,
    text: '',
    finishReason: 'other',
    toolCalls: [],
    toolResults: [],
    suspendedToolCalls: [],
  };
  for await (const chunk of result.fullStream) {
    switch (chunk.type) {
      case 'text-delta':
        out.text += chunk.payload.text;
        break;
      case 'tool-call':
        out.toolCalls.push(chunk.payload);
        break;
      case 'tool-result':
        out.toolResults.push(chunk.payload);
        break;
      case 'tool-call-approval': {
        const { toolCallId, toolName, args, resumeSchema, chain } = chunk.payload;
        out.suspendedToolCalls.push({ toolCallId, toolName, args, requiresApproval: true, resumeSchema, chain });
        break;
      }
      case 'tool-call-suspended': {
        const { toolCallId, toolName, args, suspendPayload, resumeSchema, chain } = chunk.payload;
        out.suspendedToolCalls.push({ toolCallId, toolName, args, requiresApproval: false, suspendPayload, resumeSchema, chain });
        break;
      }
      case 'finish':
        out.finishReason = chunk.payload.finishReason;
        break;
      default:
        break;
    }
  }
  const first = out.suspendedToolCalls[0];
  if (out.finishReason === 'suspended' && first) {
    out.suspendPayload = first.requiresApproval
      ? { toolCallId: first.toolCallId, toolName: first.toolName, args: first.args }
      : first.suspendPayload;
    out.resumeSchema = first.resumeSchema;
  }
  return out;
}

/**
 * Asks the model to turn a user's message into resume data for `schema` (structured output).
 * @returns the validated data, or undefined when the message does not answer the question
 */
async function extractResumeData(input: { model: LanguageModel; schema: z.ZodType; text: string; suspendPayload: unknown }) {
  try {
    const { output } = await generateText({
      model: input.model,
      output: Output.object({ schema: input.schema }),
      system: 'Extract the answer to the pending question from the user message as JSON matching the schema.',
      prompt: `Question: ${JSON.stringify(input.suspendPayload)}\nUser message: ${input.text}`,
    });
    const parsed = input.schema.safeParse(output);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
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

function toModelOutput(outcome: CallOutcome) {
  switch (outcome.type) {
    case 'result':
      return { type: 'json' as const, value: (outcome.output ?? null) as never };
    case 'error':
      return { type: 'error-text' as const, value: outcome.message };
    case 'denied':
      return { type: 'text' as const, value: outcome.reason };
  }
}

function alreadyDecided(row: PendingCall): AgentError {
  return new AgentError('ALREADY_DECIDED', 'This call was already decided.', {
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
