import type { ModelMessage } from 'ai';
import type { AgentChunk } from './chunks';
import type { Approvers, RequestContext } from './tool';

/**
 * The persistence the runtime asks for. The runtime never imports a database client; the Prisma
 * implementation lives in `lib/store`. Every method is one short transaction.
 */

export type RunStatus = 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled';

/** Outcome of one tool call of a step, as fed back to the model. */
export type CallOutcome =
  | { type: 'result'; output: unknown }
  | { type: 'error'; message: string }
  | { type: 'denied'; reason: string };

export interface StepCall {
  toolCallId: string;
  toolName: string;
  args: unknown;
  /** Set once known; calls waiting on a person take their outcome from their pending row. */
  outcome?: CallOutcome;
}

/** The minimal state needed to continue a run in any process. Source: SPEC §5. */
export interface RunState {
  /** Prompt messages so far: thread history, this run's input and its generated messages. */
  messages: ModelMessage[];
  /** Index of the current model step (0-based). */
  step: number;
  maxSteps: number;
  /** Tool calls of the current step, in the order the model made them. */
  stepCalls: StepCall[];
  /** Where this run sits in a delegation tree (SPEC §4). */
  lineage: Lineage;
  /** Number of messages in `messages` that were already in the thread's memory. */
  historyLength: number;
  requestContext: RequestContext;
  /** Id of the text parts' counter so ids stay unique across continuations. */
  textPartCounter: number;
  /**
   * The request-level approval policy as far as it can be stored: a function cannot be, so a
   * later step continued in another process treats `function` as "approval required" (fail closed).
   */
  requestApproval: 'always' | 'function' | 'never';
}

/**
 * A run's place under the top-level run. Approvals and suspensions anywhere below surface on the
 * top-level run under the delegation call that leads to them (`rootToolCallId`).
 */
export interface Lineage {
  rootRunId: string;
  /** The top-level assistant message the whole tree streams into. */
  rootMessageId: string;
  /** The top-level delegation call this run serves; null for the top-level run itself. */
  rootToolCallId: string | null;
  /** The parent's call that started this run; null for the top-level run. */
  parentToolCallId: string | null;
  /** Agent ids from the top-level agent down to this run's agent. */
  chain: string[];
}

export interface RunRecord {
  id: string;
  threadId: string;
  resourceId: string;
  agentId: string;
  parentRunId: string | null;
  messageId: string;
  status: RunStatus;
  state: RunState | null;
}

/** `delegation` rows are not waiting on a person: they mark a parent call waiting on a child run. */
export type PendingCallKind = 'approval' | 'suspension' | 'delegation';

/**
 * Lifecycle of a pending row: `pending` → `approved`/`resumed` (claimed, executing) →
 * `completed`/`failed`/`superseded`; or `pending` → `declined`. Only `pending` waits on a person;
 * `waiting` is a delegation row waiting on its child run; `unknown` is a claimed call whose process
 * died while it executed (its outcome is unknown and it is never re-executed automatically).
 */
export type PendingCallStatus =
  | 'pending'
  | 'waiting'
  | 'unknown'
  | 'approved'
  | 'resumed'
  | 'declined'
  | 'completed'
  | 'failed'
  | 'superseded';

export interface PendingCall {
  id: string;
  runId: string;
  toolCallId: string;
  kind: PendingCallKind;
  status: PendingCallStatus;
  toolName: string;
  args: unknown;
  fingerprint: string;
  approvers: Approvers;
  /** Why it needs a person: `request`, `agent-default`, `tool`, `policy-error`, `suspend`. */
  policy: string;
  suspendPayload: unknown;
  /** JSON Schema (string) of what a decision or resume must carry. */
  resumeSchema: string;
  threadId: string;
  resourceId: string;
  agentId: string;
  chain: string[];
  /** The top-level run and call a person addresses this row by (itself when not delegated). */
  rootRunId: string;
  rootToolCallId: string;
  /** For a delegation row: the child run it waits on. */
  childRunId: string | null;
  output: CallOutcome | null;
  resumeData: unknown;
  decisionReason: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  createdAt: Date;
}

export type NewPendingCall = Omit<
  PendingCall,
  'status' | 'output' | 'resumeData' | 'decisionReason' | 'decidedBy' | 'decidedAt' | 'createdAt'
>;

/** The audit record written in the same transaction as a claim. */
export interface DecisionRecord {
  id: string;
  kind: 'approval' | 'decline' | 'resume';
  approved: boolean | null;
  reason: string | null;
  actorId: string;
  actorRole: string;
  fingerprint: string;
  args: unknown;
  editedArgs: unknown;
  editedFingerprint: string | null;
  resumeData: unknown;
}

export interface SuspendedRunsQuery {
  agentId?: string;
  threadId?: string;
  resourceId?: string;
  fromDate?: Date;
  toDate?: Date;
  page?: number;
  perPage?: number;
}

export interface AgentStore {
  /** Creates the thread when missing; an existing thread of another resource is an error. */
  ensureThread(input: { threadId: string; resourceId: string; agentId: string; title?: string }): Promise<void>;
  /** The thread's memory, oldest first. */
  loadHistory(input: { threadId: string }): Promise<ModelMessage[]>;
  /** Inserts a `running` run and, for a top-level run, the user's message into memory. */
  createRun(input: { run: RunRecord; userMessage?: { id: string; message: ModelMessage } }): Promise<void>;
  loadRun(input: { runId: string }): Promise<RunRecord | null>;
  /** Appends a user message to the thread's memory (an auto-resume answer), tied to the run it resumed. */
  addUserMessage(input: { threadId: string; runId: string; message: ModelMessage }): Promise<void>;
  /** Appends chunks to the run's event log, in order. */
  appendEvents(input: { runId: string; chunks: AgentChunk[] }): Promise<void>;
  /** One transaction: events, run state, status `suspended`, new pending rows. */
  suspendRun(input: { runId: string; state: RunState; pendingCalls: NewPendingCall[]; events: AgentChunk[] }): Promise<void>;
  /** Saves the state of a running run (e.g. after a step) together with events. */
  saveRunState(input: { runId: string; state: RunState; events: AgentChunk[] }): Promise<void>;
  /** One transaction: events, status, state cleared, the run's new messages appended to memory. */
  finishRun(input: {
    runId: string;
    status: 'completed' | 'failed' | 'cancelled';
    error?: string;
    events: AgentChunk[];
    newMessages: ModelMessage[];
  }): Promise<void>;
  /** A run's own rows (including delegation rows), oldest first. */
  listPendingCalls(input: { runId: string }): Promise<PendingCall[]>;
  /** Every row addressed through a top-level run (its own and its descendants'), oldest first. */
  listPendingCallsByRoot(input: { rootRunId: string }): Promise<PendingCall[]>;
  /** Records that a parent call now waits on a child run (a `waiting` delegation row). */
  startDelegation(input: { call: NewPendingCall }): Promise<void>;
  /** Closes the parent's delegation row for a child run that ended, with the child's outcome. */
  closeDelegation(input: { childRunId: string; status: 'completed' | 'failed'; output: CallOutcome }): Promise<void>;
  findOpenPendingCalls(input: { threadId?: string; resourceId?: string; runId?: string }): Promise<PendingCall[]>;
  /**
   * Compare-and-set claim: `pending` → `status` and the decision record, in one transaction.
   * @returns the claimed row, or null when another decision won (the row is not pending).
   */
  claimPendingCall(input: {
    pendingCallId: string;
    status: 'approved' | 'declined' | 'resumed';
    decidedBy: string;
    reason: string | null;
    resumeData: unknown;
    args: unknown;
    fingerprint: string;
    decision: DecisionRecord;
    output: CallOutcome | null;
  }): Promise<PendingCall | null>;
  /** Closes a claimed row with its outcome, together with events. */
  closePendingCall(input: {
    pendingCallId: string;
    status: 'completed' | 'failed' | 'superseded' | 'declined';
    output: CallOutcome | null;
    events: AgentChunk[];
    newPendingCall?: NewPendingCall;
  }): Promise<void>;
  /**
   * Locks the run; when it is `suspended` and none of its rows is open or executing, marks it
   * `running` and returns it. Exactly one caller wins the continuation.
   */
  acquireContinuation(input: { runId: string }): Promise<RunRecord | null>;
  /** Marks the top-level run as owned by a live process for `ms` more milliseconds. */
  renewLease(input: { runId: string; ms: number }): Promise<void>;
  /** Top-level runs with work in flight (running, or a claimed call executing) whose lease ran out before `before`. */
  listAbandonedRuns(input: { before: Date; limit: number }): Promise<{ runId: string; threadId: string }[]>;
  /**
   * One transaction, for a tree whose process died: claimed calls become `unknown` (never re-run),
   * every unfinished run of the tree `failed`, and `events` are appended to the top-level run.
   * @returns the calls whose outcome is now unknown
   */
  markRunInterrupted(input: {
    rootRunId: string;
    error: string;
    events: (unknownCalls: PendingCall[]) => AgentChunk[];
  }): Promise<PendingCall[]>;
  listSuspendedRuns(query: SuspendedRunsQuery): Promise<{ runs: { run: RunRecord; suspendedAt: Date; calls: PendingCall[] }[]; total: number }>;
}
