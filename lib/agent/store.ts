import type { ModelMessage } from 'ai';
import type { AgentChunk, DecisionSummary } from './chunks';
import type { DeadlineAction } from './deadline';
import type { PolicyEvaluation } from './data-policy';
import type { Actor, Approvers, RequestContext } from './tool';

/**
 * The persistence the runtime asks for. The runtime never imports a database client; the Prisma
 * implementation lives in `lib/store`.
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

/** The minimal state needed to continue a run in any process. Source: behaviour §5. */
export interface RunState {
  /** Prompt messages so far: thread history, this run's input and its generated messages. */
  messages: ModelMessage[];
  /** Index of the current model step (0-based). */
  step: number;
  maxSteps: number;
  /** Tool calls of the current step, in the order the model made them. */
  stepCalls: StepCall[];
  /** Where this run sits in a delegation tree (behaviour §4). */
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
  /**
   * Ids of the current step's calls that started executing without a person's decision, written
   * before the first of them starts. A run with any is never taken over after a crash (a tool is
   * never run twice); it ends as interrupted instead. Cleared when the step's results are appended.
   */
  startedCalls?: string[];
}

/**
 * A run's place under the top-level run. Approvals and suspensions anywhere below surface on the
 * top-level run under their own qualified id (`delegationCallId` + their id, see call-id.ts).
 */
export interface Lineage {
  rootRunId: string;
  /** The top-level assistant message the whole tree streams into. */
  rootMessageId: string;
  /** The top-level delegation call this run serves; null for the top-level run itself. */
  rootToolCallId: string | null;
  /**
   * The qualified id of the delegation call that started this run (null for the top-level run);
   * a call of this run is addressed as `${delegationCallId}~${toolCallId}`. Absent in states saved
   * before ids were qualified.
   */
  delegationCallId?: string | null;
  /** The parent's call that started this run; null for the top-level run. */
  parentToolCallId: string | null;
  /** Agent ids from the top-level agent down to this run's agent. */
  chain: string[];
}

export interface RunRecord {
  id: string;
  threadId: string;
  resourceId: string;
  /**
   * Who started the run: the signed-in identity, never a value from a request body. A child run
   * inherits it. Four-eyes keeps this person from deciding the run's reviewer-only calls.
   */
  requestedBy: string;
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
  /** Why it needs a person: `request`, `agent-default`, `tool`, `data-policy`, `policy-error`, `suspend`. */
  policy: string;
  /** Version of the data policy rule list in force when the call was evaluated (null: no rule matched). */
  policyVersion: number | null;
  /** The evaluation that paused an approval call: the rule, its values and "why it waits" (null otherwise). */
  policyEvaluation: PolicyEvaluation | null;
  /** Distinct reviewers whose approval is needed (null: one decision decides). */
  quorum: number | null;
  /** Reviewers who approved a quorum call so far, in order (empty otherwise). */
  approvedBy: string[];
  suspendPayload: unknown;
  /** JSON Schema (string) of what a decision or resume must carry. */
  resumeSchema: string;
  threadId: string;
  resourceId: string;
  /** The run's requester (RunRecord.requestedBy), whom four-eyes refuses as a decider. */
  requestedBy: string;
  agentId: string;
  chain: string[];
  /**
   * The top-level run and the id a person addresses this row by: the call's own id at the top level,
   * its qualified id (`<delegation id>~…~<own id>`, see call-id.ts) below. Unique within the
   * top-level run; cards, the inbox, suspended runs, the audit and every decision route use it.
   */
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
  /** When the call is declined or escalated unless someone decided it (see deadline.ts); null: no deadline. */
  deadlineAt?: Date | null;
  deadlineAction?: DeadlineAction | null;
  /** The decline reason the model reads at the deadline; null: derived from the duration. */
  deadlineReason?: string | null;
  /** When the deadline escalated the call (to `assignedToRole`). */
  escalatedAt?: Date | null;
  assignedToRole?: string | null;
}

export type NewPendingCall = Omit<
  PendingCall,
  'approvedBy' | 'status' | 'output' | 'resumeData' | 'decisionReason' | 'decidedBy' | 'decidedAt' | 'createdAt' | 'deadlineAt' | 'escalatedAt' | 'assignedToRole'
> & {
  /** A deadline this long after the row is stored (database time), in ms. */
  deadlineAfterMs?: number | null;
};

/**
 * A claim: one statement that compare-and-sets the pending row, appends the decision record,
 * takes the top-level run's lease and returns what the continuation needs.
 */
export interface ClaimInput {
  /** The top-level run the call is addressed through. */
  rootRunId: string;
  /**
   * The call's qualified id; or, when no call of the run has that id, its own (leaf) id or the id of
   * a delegation it runs under (see call-id.ts `callsAddressedBy`); any open call of the run when omitted.
   */
  toolCallId?: string;
  /** The row, when the caller has already read it. */
  pendingCallId?: string;
  /** The top-level run must be this agent's. */
  agentId: string;
  /** `agentId toolName` pairs the agent's tree can run; a row for anything else is not claimed. */
  executable: string[];
  kind: 'approval' | 'suspension';
  /** When set, the row's fingerprint must equal it (what the decider saw). */
  fingerprint?: string;
  actor: Actor;
  /** A decline by the call's requester withdrawing it: allowed to them instead of four-eyes (withdraw.ts). */
  withdraw?: boolean;
  status: 'approved' | 'declined' | 'resumed';
  reason: string | null;
  resumeData: unknown;
  /** Reviewer-edited arguments that replace the row's (with their fingerprint). */
  edited?: { args: unknown; fingerprint: string };
  /** Id of the appended `decisions` record. */
  decisionId: string;
  /** The top-level run's lease, in ms. */
  leaseMs: number;
  /** Chunks appended to the top-level run's log when (and only when) the claim wins. */
  topEvents?: AgentChunk[];
  /**
   * The deadline's claim (a decline by the system, see deadline.ts): the row must have a `decline`
   * deadline that has passed (database time); four-eyes does not apply; the decision is recorded with
   * actor `system`. A person's decision and the deadline race on this same compare-and-set.
   */
  byDeadline?: boolean;
  /**
   * Instead of `topEvents`, for a caller that has not read the row: the statement itself builds
   * the decision's top-level chunks from the row it claims — `start` (the top-level run's message)
   * and `tool-call-resumed` with this summary, readdressed to the top for a sub-agent's call, as
   * `decisionChunks` (pending.ts) builds them — appends them and returns them as `Claimed.events`.
   */
  decision?: DecisionSummary;
}

/** What a winning claim returns. */
export interface Claimed {
  /** The row as claimed. */
  call: PendingCall;
  /** The run that owns the row, with its state. */
  run: RunRecord;
  /** The top-level run's assistant message. */
  topMessageId: string;
  /** The chunks the claim appended to the top-level run's log (when it was given `decision`), in order. */
  events?: AgentChunk[];
}

/** A run without its (large) state, as a decision target. */
export type RunSummary = Omit<RunRecord, 'state'> & { hasState: boolean };

/** What an approval decision reads of a run's state: the request's context and its approval switch. */
export type PolicyInputs = Pick<RunState, 'requestContext' | 'requestApproval'>;

export interface SuspendedRunsQuery {
  agentId?: string;
  threadId?: string;
  resourceId?: string;
  fromDate?: Date;
  toDate?: Date;
  page?: number;
  perPage?: number;
}

/**
 * Every method is a single SQL statement (a few reads excepted, noted below): no transaction is
 * held open across JavaScript, so a busy process can slow a decision down but never time one out.
 */
export interface AgentStore {
  /**
   * One statement: creates the thread (or touches an existing one of the same resource), inserts
   * the `running` top-level run holding the lease for `leaseMs`, and its input messages (all of
   * them, in order).
   * `run.state.messages` holds this run's input only; the stored state gets the thread's memory
   * (oldest first) in front, and `historyLength` grows by its length.
   * @returns that memory: the thread's messages before this run; the thread's calls waiting on a
   *   person (`open`, oldest first) and the top-level runs they belong to with their state
   *   (`waiting`, oldest first), read in the same statement
   * @throws AgentError RUN_IN_PROGRESS when a top-level run of the thread is running (one turn at a
   *   time; a run waiting on a person is not running); Error when the thread belongs to another
   *   resource (nothing is written in either case)
   */
  startRun(input: {
    run: RunRecord & { state: RunState };
    title?: string;
    inputMessages: { id: string; message: ModelMessage }[];
    leaseMs: number;
  }): Promise<{ history: ModelMessage[]; open: PendingCall[]; waiting: { runId: string; state: RunState }[] }>;
  /** One statement: inserts a child run and its parent's `waiting` delegation row (an open call of the parent). */
  startChildRun(input: { run: RunRecord; delegation: NewPendingCall }): Promise<void>;
  loadRun(input: { runId: string }): Promise<RunRecord | null>;
  /**
   * One read: a top-level run (without state) and every row addressed through it, oldest first;
   * `policyInputs`: for each run with an open row, what an edited approval's policy decision reads
   * of its state (edit-approval.ts), by run id.
   */
  loadDecisionTarget(input: { rootRunId: string }): Promise<{ run: RunSummary | null; calls: PendingCall[]; policyInputs: Record<string, PolicyInputs> }>;
  /** Appends a user message to the thread's memory (an auto-resume answer), tied to the run it resumed. */
  addUserMessage(input: { threadId: string; runId: string; message: ModelMessage }): Promise<void>;
  /** Appends chunks to the run's event log, in order. */
  appendEvents(input: { runId: string; chunks: AgentChunk[] }): Promise<void>;
  /**
   * One statement: events, run state, new pending rows (open calls of the run) and the status:
   * `suspended`, or — when no call of the step is open any more (children it waited on have
   * finished) — `running`, and this caller continues it. `finalEvents` follow `events` in the log
   * only when the run stays suspended.
   * @returns true when the caller continues the run
   */
  suspendRun(input: { runId: string; state: RunState; pendingCalls: NewPendingCall[]; events: AgentChunk[]; finalEvents?: AgentChunk[] }): Promise<boolean>;
  /** Saves the state of a running run (e.g. after a step) together with events. */
  saveRunState(input: { runId: string; state: RunState; events: AgentChunk[] }): Promise<void>;
  /** One statement: events, status, state cleared, the run's new messages appended to memory (top-level runs). */
  finishRun(input: {
    runId: string;
    status: 'completed' | 'failed' | 'cancelled';
    error?: string;
    events: AgentChunk[];
    newMessages: ModelMessage[];
  }): Promise<void>;
  /** A run's own rows (including delegation rows), oldest first. */
  listPendingCalls(input: { runId: string }): Promise<PendingCall[]>;
  /**
   * One statement: closes the parent's delegation row for a child run that ended, with the child's
   * outcome. @returns the parent run (now `running`) when this closed its step's last open call
   * while it was suspended, else null
   */
  closeDelegation(input: { childRunId: string; status: 'completed' | 'failed'; output: CallOutcome }): Promise<RunRecord | null>;
  findOpenPendingCalls(input: { threadId?: string; resourceId?: string; runId?: string }): Promise<PendingCall[]>;
  /**
   * One statement. Claims the one open row the input addresses when it is of `kind`, its tool is
   * executable, the actor may decide it (four-eyes) and the fingerprint matches; several open rows
   * matching claim nothing.
   * @returns the claim, or null when nothing was claimed (the caller reads why)
   */
  claimPendingCall(input: ClaimInput): Promise<Claimed | null>;
  /**
   * One statement: records `actor`'s approval of a quorum call that is still pending and not yet
   * full (the row lock serialises voters, so exactly one vote makes it full). A vote that does not
   * make it full also appends a `vote` decision record and `event` (with `approvals` and
   * `approvedBy` filled in) to the top-level run's log.
   * @returns the approvals so far and the quorum, or null when nothing was recorded (not pending,
   *   already voted, already full, not a quorum call)
   */
  castVote(input: { pendingCallId: string; rootRunId: string; actor: Actor; decisionId: string; event: AgentChunk }): Promise<{ approvals: number; quorum: number; approvedBy: string[] } | null>;
  /**
   * One statement: closes a claimed row with its outcome, together with the run's events, and
   * (re-suspension) opens `newPendingCall` in its place.
   * @returns the run (now `running`) when this closed its step's last open call, else null
   */
  closePendingCall(input: {
    pendingCallId: string;
    runId: string;
    status: 'completed' | 'failed' | 'superseded' | 'declined';
    output: CallOutcome | null;
    events: AgentChunk[];
    newPendingCall?: NewPendingCall;
  }): Promise<RunRecord | null>;
  /** Marks the top-level run as owned by a live process for `ms` more ms; says whether a Stop was asked (`requestStop`). */
  renewLease(input: { runId: string; ms: number }): Promise<{ stopRequested: boolean } | void>;
  /**
   * One statement: marks the thread's running top-level run as to be stopped and announces it to
   * every server (NOTIFY at commit). The segment that holds the run's lease stops it (stop.ts).
   * @returns the run, or null when no turn of the thread is running (a waiting approval is not)
   */
  requestStop(input: { threadId: string }): Promise<{ runId: string } | null>;
  /**
   * Calls `listener` when someone asks to stop `runId` (from any server), until the returned
   * function is called. Optional: without it, a Stop is heard at the next lease renewal.
   */
  onStopRequested?(runId: string, listener: () => void): Promise<() => void>;
  /** Top-level runs with work in flight (running, or a claimed call executing) whose lease ran out before `before`. */
  listAbandonedRuns(input: { before: Date; limit: number }): Promise<{ runId: string; threadId: string; agentId: string }[]>;
  /**
   * Takes over a top-level run whose process died in a model step (takeover.ts), in one
   * compare-and-set statement: only when the lease has run out, the run is `running` with a
   * state, no call of its tree is claimed or executing (`approved`, `resumed`, a child run
   * `waiting`), and no tool of its current step has started (`RunState.startedCalls`). The
   * new lease lasts `leaseMs`. The events of the unfinished step (from the log's last
   * `step-start` that no `step-finish` follows) are deleted in the same statement, so the log
   * replays as if the step had not begun.
   * @returns the run as taken over, or null when it is not (another server took it, or it must fail)
   */
  takeOverRun(input: { runId: string; leaseMs: number }): Promise<RunRecord | null>;
  /**
   * For a tree whose process died, in one statement (after reads of the claimed calls and of the
   * top-level run's state and rows): claimed calls become `unknown` (never re-run), every unfinished
   * run of the tree `failed`, `events` are appended to the top-level run, and `messages` (given the
   * top-level run's last state and its own rows, as this marks them) are appended to the thread's
   * memory. Nothing happens while the lease is live.
   * @returns the calls whose outcome is now unknown
   */
  markRunInterrupted(input: {
    rootRunId: string;
    error: string;
    events: (unknownCalls: PendingCall[]) => AgentChunk[];
    messages: (input: { state: RunState; rows: PendingCall[] }) => ModelMessage[];
  }): Promise<PendingCall[]>;
  /**
   * Top-level runs with calls waiting on a person (`pending` rows, theirs and their sub-agents'),
   * newest first, and how many match, read in one statement: `total` always equals what paging
   * through the same filter yields, and a call whose decision was accepted is in neither.
   */
  listSuspendedRuns(query: SuspendedRunsQuery): Promise<{
    runs: { runId: string; threadId: string; resourceId: string; suspendedAt: Date; calls: PendingCall[] }[];
    total: number;
  }>;
}
