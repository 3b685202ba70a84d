import { randomUUID } from 'node:crypto';
import type { ModelMessage } from 'ai';
import type { AgentStreamResult } from './context';
import { tryAutoResume } from './decisions';
import { AgentError } from './errors';
import { emit, newRunContext } from './events';
import { containsUnstorableText } from './model-output';
import { waitingTurns } from './pending';
import type { RequestApprovalPolicy } from './policy';
import { initialState, runSteps } from './run-loop';
import { launch, LEASE_MS } from './segment';
import type { AgentSpec } from './spec';
import type { RunRecord, RunState } from './store';
import type { Actor, RequestContext } from './tool';

/** Starting a run: checking the input, one statement that creates it, then the run loop in a segment. */

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

/**
 * Starts a run on a thread with a new user message and streams it. Runs of the thread that still
 * wait on a person do not block it: the model reads them with their waiting calls as pending, a
 * call identical to a waiting one (same fingerprint) gets an `already-pending` result instead of
 * waiting twice, and the waiting calls stay decidable (behaviour §5a).
 *
 * @param input the user's message text, or model messages to add (user and assistant only:
 *   the agent's instructions are its system prompt). All of them are stored in the thread's
 *   memory, in order, before the run starts.
 * @param spec the agent that runs it
 * @param options thread, resource (owner) and per-request options
 * @returns the stream result; the run goes on in the background whether or not it is read
 * @throws AgentError BAD_REQUEST (no messages, or a system/tool message), INVALID_INPUT (text
 *   PostgreSQL cannot store: NUL or a lone surrogate) — before anything is stored; RUN_IN_PROGRESS
 *   (from the store's statement that creates the run) when a turn of the thread is still running
 */
export async function startStream(spec: AgentSpec, input: string | ModelMessage[], options: StreamOptions): Promise<AgentStreamResult> {
  const { threadId, resourceId } = options;
  checkInput(input);
  const requester: Actor = options.requester ?? { id: resourceId, role: 'user' };
  const autoResume = options.autoResumeSuspendedTools ?? spec.defaultOptions.autoResumeSuspendedTools ?? false;
  if (autoResume && typeof input === 'string') {
    const resumed = await tryAutoResume(spec, input, options, requester);
    if (resumed) return resumed;
  }
  const newMessages: ModelMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  const runId = randomUUID();
  const messageId = options.messageId ?? randomUUID();
  // The store puts the thread's memory in front of this input as it creates the run.
  const initial = initialState(spec, {
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
      chain: [spec.id],
    },
  });
  const inputMessages = newMessages.map((message) => ({ id: randomUUID(), message }));
  const { history, open, waiting } = await spec.store.startRun({
    run: { id: runId, threadId, resourceId, requestedBy: requester.id, agentId: spec.id, parentRunId: null, messageId, status: 'running', state: initial },
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
  const run: RunRecord = { id: runId, threadId, resourceId, requestedBy: requester.id, agentId: spec.id, parentRunId: null, messageId, status: 'running', state };
  return launch(spec, { id: runId, messageId }, async (segment) => {
    const ctx = newRunContext(segment, spec, run, state, { requestPolicy: options.requireToolApproval, abortSignal: options.abortSignal });
    ctx.openAtStart = open;
    emit(ctx, 'start', { messageId, threadId });
    await runSteps(ctx);
  });
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
