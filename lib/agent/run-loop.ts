import { randomUUID } from 'node:crypto';
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { qualifiedCallId } from './call-id';
import { makeChunk, type RunContext } from './context';
import { emit, newRunContext, withEvents } from './events';
import { fingerprintToolCall } from './fingerprint';
import { toModelOutput } from './history';
import { modelStep } from './model-step';
import { checkToolArgs, storableText, storableValue } from './model-output';
import { alreadyPending, pendingBase, pendingChunk, pendingRow } from './pending';
import { decideApproval } from './approval-decision';
import type { RequestApprovalPolicy } from './policy';
import { delegationCallIdOf, surface } from './segment';
import { DEFAULT_MAX_STEPS, requireTool, type AgentSpec } from './spec';
import { NOT_RUN_STOPPED, RunStopped, stopRequested, throwIfStopped } from './stop';
import type { CallOutcome, Lineage, NewPendingCall, PendingCall, RunRecord, RunState, StepCall } from './store';
import { isSuspendSignal, makeSuspendSignal, type RequestContext, type Tool } from './tool';

/**
 * The run loop: model step, validation, approval check, execution (sub-agents as child runs),
 * pause, and the bookkeeping that resumes a step once its waiting calls are closed. Every function
 * works on a run's context (`ctx.spec` is the agent running it).
 */

/** How one call's execution ended: an outcome, a suspension (its payload), or a child run that waits. */
export type ExecutionOutcome = { outcome: CallOutcome } | { suspended: unknown } | { delegated: 'waiting' };
/** How the loop stopped: the run finished (its last text, a child's answer), or it waits on a person. */
export type StepsResult = { status: 'completed'; text: string } | { status: 'suspended' };

/**
 * The state a new run starts from.
 * @param spec the agent that runs it (its default `maxSteps`, else DEFAULT_MAX_STEPS)
 */
export function initialState(spec: AgentSpec, input: {
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
    maxSteps: input.maxSteps ?? spec.defaultOptions.maxSteps ?? DEFAULT_MAX_STEPS,
    stepCalls: [],
    historyLength: input.historyLength,
    requestContext: input.requestContext,
    textPartCounter: 0,
    requestApproval: storablePolicy(input.requestPolicy),
    lineage: input.lineage,
  };
}

/** The model/tool loop: one model step at a time until the model stops, a call pauses, or maxSteps. */
export async function runSteps(ctx: RunContext): Promise<StepsResult> {
  const { state } = ctx;
  for (;;) {
    if (state.step >= state.maxSteps) {
      emit(ctx, 'finish', { finishReason: 'length' });
      await finish(ctx);
      return { status: 'completed', text: ctx.lastText };
    }
    throwIfStopped(ctx);
    emit(ctx, 'step-start', { step: state.step });
    const { calls, refused, declined, cutOff } = await modelStep(ctx);
    // A model that ignored the abort answered anyway: none of its calls runs after a Stop.
    if (stopRequested(ctx)) {
      for (const call of calls) settle(ctx, call, { type: 'error', message: NOT_RUN_STOPPED });
      state.stepCalls = calls;
      throw new RunStopped();
    }
    if (calls.length === 0) {
      emit(ctx, 'step-finish', { step: state.step, finishReason: 'stop' });
      state.step += 1;
      emit(ctx, 'finish', { finishReason: declined ? 'content-filter' : cutOff ? 'length' : 'stop' });
      await finish(ctx);
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
      openOnThread ??= ctx.spec.store.findOpenPendingCalls({ threadId: ctx.run.threadId });
      return waiting.find((row) => row.fingerprint === fingerprint) ?? (await openOnThread).find((row) => row.fingerprint === fingerprint);
    };
    for (const call of calls) {
      emit(ctx, 'tool-call', { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args });
      // Args a model sent that cannot be stored, approved or replayed fail as this call (model-output.ts).
      const problem = refused.get(call.toolCallId);
      if (problem) {
        settle(ctx, call, { type: 'error', message: problem });
        continue;
      }
      const tool = ctx.spec.tools.get(call.toolName);
      if (!tool) {
        settle(ctx, call, { type: 'error', message: `Unknown tool ${call.toolName}` });
        continue;
      }
      // Input is validated before approval is asked: an invalid call never reaches a reviewer.
      const parsed = tool.inputSchema.safeParse(call.args);
      if (!parsed.success) {
        settle(ctx, call, { type: 'error', message: `Invalid input: ${z.prettifyError(parsed.error)}` });
        continue;
      }
      // A schema's transforms could produce what the model could not send; check the parsed args too.
      const checked = checkToolArgs(parsed.data);
      if (!checked.ok) {
        settle(ctx, call, { type: 'error', message: checked.problem });
        continue;
      }
      call.args = parsed.data;
      const evaluation = await decideApproval({
        tool,
        args: call.args,
        requestContext: state.requestContext,
        requestPolicy: ctx.requestPolicy ?? storedPolicy(state.requestApproval),
        agentDefault: ctx.spec.defaultOptions.requireToolApproval,
        dataPolicy: ctx.spec.dataPolicy,
        call: { agentId: ctx.spec.id, runId: ctx.run.id, toolCallId: call.toolCallId, threadId: ctx.run.threadId, resourceId: ctx.run.resourceId, requestedBy: ctx.run.requestedBy },
      });
      if (!evaluation) {
        toRun.push(call);
        continue;
      }
      const twin = await pendingTwin(tool, call.args);
      if (twin) settle(ctx, call, alreadyPending(twin));
      else waiting.push(pendingRow(ctx, tool, call, { kind: 'approval', evaluation }));
    }
    // Calls that need no approval run right away, even when others of the step wait. Before the
    // first starts, the step is committed with their ids: after a crash it is never run again.
    // (A refused call's args could not be stored; its error outcome is what counts.)
    if (toRun.length > 0) {
      state.startedCalls = toRun.map((call) => call.toolCallId);
      const stepCalls = calls.map((call) => (refused.has(call.toolCallId) ? { ...call, args: null } : call));
      await withEvents(ctx, (events) => ctx.spec.store.saveRunState({ runId: ctx.run.id, state: { ...state, stepCalls }, events }));
    }
    let delegationsWaiting = false;
    for (const call of toRun) {
      // After a Stop no call starts; one that started is left to finish (stop.ts).
      if (stopRequested(ctx)) {
        settle(ctx, call, { type: 'error', message: NOT_RUN_STOPPED });
        continue;
      }
      const tool = ctx.spec.tools.get(call.toolName)!;
      // A tool that can suspend is not run again while the same question waits on the thread.
      const twin = tool.suspendSchema || tool.resumeSchema ? await pendingTwin(tool, call.args) : undefined;
      if (twin) {
        settle(ctx, call, alreadyPending(twin));
        continue;
      }
      const result = await execute(ctx, tool, call, {});
      if ('suspended' in result) waiting.push(pendingRow(ctx, tool, call, { kind: 'suspension', payload: result.suspended }));
      if ('delegated' in result) delegationsWaiting = true;
    }
    if (stopRequested(ctx)) {
      // Nothing of a stopped step waits on a person: its calls that would have waited did not run.
      const wouldWait = new Set(waiting.filter((row) => row.kind === 'approval').map((row) => row.toolCallId));
      for (const call of calls) if (!call.outcome && wouldWait.has(call.toolCallId)) settle(ctx, call, { type: 'error', message: NOT_RUN_STOPPED });
      throw new RunStopped();
    }
    if (waiting.length > 0 || delegationsWaiting) {
      const continued = await pause(ctx, waiting);
      if (!continued) return { status: 'suspended' };
      continue;
    }
    appendToolResults(state, calls);
    emit(ctx, 'step-finish', { step: state.step, finishReason: 'tool-calls' });
    state.step += 1;
    await withEvents(ctx, (events) => ctx.spec.store.saveRunState({ runId: ctx.run.id, state, events }));
  }
}

/** Records a call's outcome (made storable: a tool may return anything) and emits its result chunk. */
export function settle(ctx: RunContext, call: StepCall, unsafe: CallOutcome) {
  const outcome = storableOutcome(unsafe);
  call.outcome = outcome;
  const base = { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args };
  if (outcome.type === 'result') emit(ctx, 'tool-result', { ...base, result: outcome.output });
  else if (outcome.type === 'error') emit(ctx, 'tool-error', { ...base, error: outcome.message });
  else emit(ctx, 'tool-output-denied', { ...base, approval: { approved: false, reason: outcome.reason } });
}

/** Executes one call (hooks, delegation, suspend, output validation); emits its result unless it waits. */
export async function execute(ctx: RunContext, tool: Tool, call: StepCall, resume: { resumeData?: unknown; suspendPayload?: unknown }): Promise<ExecutionOutcome> {
  const outcome = await executeRaw(ctx, tool, call, resume);
  if ('outcome' in outcome) settle(ctx, call, outcome.outcome);
  return outcome;
}

async function executeRaw(ctx: RunContext, tool: Tool, call: StepCall, resume: { resumeData?: unknown; suspendPayload?: unknown }): Promise<ExecutionOutcome> {
  try {
    const hook = await ctx.spec.hooks.beforeToolCall?.({ toolName: tool.id, input: call.args, toolCallId: call.toolCallId, runId: ctx.run.id });
    if (hook && hook.proceed === false) return { outcome: { type: 'result', output: hook.output } };
    const sub = ctx.spec.delegates.get(tool.id);
    if (sub) return await delegate(ctx, sub, call);
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
    // A sub-agent's run that was stopped stops its parents too (the call's outcome stays unknown).
    if (error instanceof RunStopped) throw error;
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
async function delegate(ctx: RunContext, sub: AgentSpec, call: StepCall): Promise<ExecutionOutcome> {
  const { prompt } = call.args as { prompt: string };
  const lineage = ctx.state.lineage;
  const childRunId = randomUUID();
  const childState = initialState(sub, {
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
  await ctx.spec.store.startChildRun({
    run: child,
    delegation: { ...pendingBase(ctx, requireTool(ctx.spec, call.toolName), call), kind: 'delegation', policy: 'delegation', suspendPayload: null, resumeSchema: '{}', childRunId },
  });
  const childCtx = newRunContext(ctx.segment, sub, child, childState, { abortSignal: ctx.abortSignal });
  emit(childCtx, 'start', { messageId: child.messageId, threadId: child.threadId });
  const result = await runSteps(childCtx);
  if (result.status === 'suspended') return { delegated: 'waiting' };
  const outcome: CallOutcome = { type: 'result', output: { text: result.text } };
  await ctx.spec.store.closeDelegation({ childRunId, status: 'completed', output: outcome });
  return { outcome };
}

/**
 * Save, then publish (behaviour §1): the run's state and its new pending rows commit before their
 * chunks reach anyone. When the step waits only on children that have all finished meanwhile (a
 * decision on a child can complete it before this pause), the same statement hands the run back
 * and this pause continues it.
 *
 * @returns true when the pause found everything decided and the step's results appended
 */
export async function pause(ctx: RunContext, waiting: NewPendingCall[]): Promise<boolean> {
  const chunks = waiting.map((row) => pendingChunk(ctx.run.id, row));
  const finish = ctx.isTop ? [makeChunk(ctx.run.id, 'finish', { finishReason: 'suspended' })] : [];
  // The calls that ran have their outcomes in the saved step; what waits is a person's to decide.
  ctx.state.startedCalls = undefined;
  const continues = await withEvents(ctx, (events) =>
    ctx.spec.store.suspendRun({ runId: ctx.run.id, state: ctx.state, pendingCalls: waiting, events: [...events, ...chunks], finalEvents: finish }),
  );
  await surface(ctx, chunks);
  if (continues) {
    await resumeStep(ctx, { ...ctx.run, status: 'running', state: ctx.state });
    return true;
  }
  for (const chunk of finish) {
    ctx.segment.finished = true;
    ctx.segment.channel.push(chunk);
  }
  return false;
}

/**
 * Fills the step's outcomes from the run's closed rows and appends them for the model.
 * @param closed the row the caller just closed: when it is the step's only open call, its rows need no read
 */
export async function resumeStep(ctx: RunContext, run: RunRecord, closed?: PendingCall) {
  ctx.run = run;
  ctx.state = run.state!;
  const open = ctx.state.stepCalls.filter((stepCall) => !stepCall.outcome);
  const known = closed?.output && open.every((stepCall) => stepCall.toolCallId === closed.toolCallId);
  const rows = known ? [closed] : await ctx.spec.store.listPendingCalls({ runId: run.id });
  for (const stepCall of ctx.state.stepCalls) {
    if (stepCall.outcome) continue;
    const last = rows.filter((candidate) => candidate.toolCallId === stepCall.toolCallId && candidate.output).at(-1);
    const outcome = last?.output ?? { type: 'error' as const, message: 'The call ended without a result.' };
    if (last) stepCall.args = last.args;
    // A decided call's result was emitted by its decider; a delegation's result is this run's to emit.
    if (!last || last.kind === 'delegation') settle(ctx, stepCall, outcome);
    else stepCall.outcome = outcome;
  }
  appendToolResults(ctx.state, ctx.state.stepCalls);
  emit(ctx, 'step-finish', { step: ctx.state.step, finishReason: 'tool-calls' });
  ctx.state.step += 1;
}

/** Adds the step's tool results to the prompt; a decline reaches the model as the reason text. */
function appendToolResults(state: RunState, calls: StepCall[]) {
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
  state.startedCalls = undefined;
}

async function finish(ctx: RunContext) {
  return withEvents(ctx, (events) =>
    ctx.spec.store.finishRun({ runId: ctx.run.id, status: 'completed', events, newMessages: ctx.state.messages.slice(ctx.state.historyLength) }),
  );
}

/** The request policy as far as a run's state can store it (a function cannot be). */
function storablePolicy(policy: RequestApprovalPolicy | undefined): RunState['requestApproval'] {
  if (policy === true) return 'always';
  if (typeof policy === 'function') return 'function';
  return 'never';
}

/** The request policy for steps after a continuation; an unavailable function fails closed. */
export function storedPolicy(stored: RunState['requestApproval'] | undefined): RequestApprovalPolicy | undefined {
  return stored === 'always' || stored === 'function' ? true : undefined;
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
