import { randomUUID } from 'node:crypto';
import { callsAddressedBy } from './call-id';
import type { DecisionSummary } from './chunks';
import type { AgentStreamResult } from './context';
import { continueAfterClaim, type ContinueDecision } from './continuation';
import { SYSTEM_ACTOR } from './deadline';
import { AgentError } from './errors';
import { fingerprintToolCall } from './fingerprint';
import { extractResumeData } from './generate';
import { checkedAnswer, checkedEditedArgs } from './decision-input';
import { checkEditedApproval } from './edit-approval';
import { containsUnstorableText } from './model-output';
import { alreadyDecided, authorize, decisionChunks } from './pending';
import { castQuorumVote, voteResult } from './quorum';
import { launch, LEASE_MS } from './segment';
import { executableTools, findSpec, requireTool, type AgentSpec } from './spec';
import type { ClaimInput, Claimed, PendingCall, PolicyInputs } from './store';
import type { Actor, Tool } from './tool';
import { authorizeWithdrawal, declineReason, type Withdrawal } from './withdraw';

/**
 * Decisions: approve, decline, resume (answer a tool's question), by run and call id or by thread
 * alone, and the auto-resume of a question by the user's next message. Each claims its call with
 * one compare-and-set statement and hands the claimed call to the continuation (continuation.ts).
 */

export interface DecisionInput extends Withdrawal {
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

/** An open row a decision addresses, read before claiming it. */
interface DecisionTarget {
  top: { id: string; messageId: string; agentId: string };
  row: PendingCall;
  owner: AgentSpec;
  /** What the row's run stored of its request, for an edit's approval decision. */
  policyInputs?: PolicyInputs;
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
  /** The deadline's claim of this row (ClaimInput.byDeadline); claiming nothing throws ALREADY_DECIDED without reads. */
  byDeadline?: { pendingCallId: string };
  /**
   * Without `known`: the decision as shown on cards, given the decision time (ISO 8601); the claim
   * builds and saves the decision's chunks from it in the same statement.
   */
  summary?: (at: string) => DecisionSummary;
}

/**
 * The deadline's decline (see deadline.ts): declines the call `pendingCallId` of the top-level run
 * `runId` as the system when its `decline` deadline has passed, through the same compare-and-set
 * claim as a person's decision (so exactly one of them wins), and continues the run as after a
 * person's decline; the model reads `reason`.
 *
 * @returns the continuation, or null when there was nothing to decline (decided meanwhile, the
 *   deadline moved or is not due, the run is gone)
 */
export async function expireDeadline(spec: AgentSpec, input: { runId: string; pendingCallId: string; reason: string }): Promise<AgentStreamResult | null> {
  const decision = (at: string): DecisionSummary => ({ approved: false, reason: input.reason, by: SYSTEM_ACTOR.id, at });
  return claimAndContinue(
    spec,
    { runId: input.runId, actor: SYSTEM_ACTOR },
    {
      kind: 'approval',
      status: 'declined',
      reason: input.reason,
      resumeData: null,
      byDeadline: { pendingCallId: input.pendingCallId },
      continuation: (row, at) => ({ approved: false, args: row.args, reason: input.reason, decision: decision(at) }),
      summary: decision,
    },
  ).catch((error: unknown) => {
    if (error instanceof AgentError && error.code === 'ALREADY_DECIDED') return null;
    throw error;
  });
}

/**
 * Resumes a suspended call with data validated against the tool's `resumeSchema`; invalid data
 * is refused and the call stays pending.
 *
 * @throws AgentError INVALID_RESUME_DATA (the schema's zod issues as details; a field the schema
 *   does not have, details `{ fields }`; too deep; NUL, a lone surrogate, a control or bidirectional
 *   character), plus the errors of decide
 */
export async function resumeToolCall(spec: AgentSpec, resumeData: unknown, input: DecisionInput): Promise<AgentStreamResult> {
  // The answer is checked against the asking tool's schema before anything is claimed, so the row is read first.
  const target = await findOpenCall(spec, input);
  const tool = checkDecidable(target.owner, target.row, input, 'suspension');
  const answer = checkedAnswer(tool, resumeData);
  return claimAndContinue(spec, input, {
    kind: 'suspension',
    status: 'resumed',
    reason: null,
    resumeData: answer,
    known: target,
    continuation: (row, at) => ({ approved: true, args: row.args, resumeData: answer, decision: { by: input.actor.id, at, resumeData: answer } }),
  });
}

/**
 * Decides or answers a pending call found in storage by thread and resource alone (no runId, no
 * in-memory state). The continuation runs in the background.
 *
 * @throws AgentError TOOL_CALL_NOT_SUSPENDED (nothing waiting), AMBIGUOUS_TOOL_CALL (several and
 *   no toolCallId), plus the errors of decide / resumeStream
 */
export async function sendToolApproval(spec: AgentSpec, input: {
  threadId: string;
  resourceId: string;
  toolCallId?: string;
  approved: boolean;
  reason?: string;
  resumeData?: unknown;
  /** As for decide: the fingerprint seen, edited args (approval), a withdrawal (decline). */
  fingerprint?: string;
  args?: unknown;
  withdraw?: boolean;
  actor: Actor;
}): Promise<{ accepted: true; runId: string; toolCallId: string; continuation: AgentStreamResult }> {
  const open = callsAddressedBy(
    (await spec.store.findOpenPendingCalls({ threadId: input.threadId, resourceId: input.resourceId })).filter(
      (row) => findSpec(spec, row.agentId) !== undefined,
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
  const target = { runId: row.rootRunId, toolCallId: row.rootToolCallId, actor: input.actor, fingerprint: input.fingerprint };
  let continuation: AgentStreamResult;
  if (row.kind === 'suspension') {
    if (!input.approved) throw new AgentError('WRONG_KIND', 'This call asks for data; send resumeData.');
    continuation = await resumeToolCall(spec, input.resumeData, target);
  } else if (input.approved) {
    continuation = await decide(spec, { ...target, approved: true, args: input.args });
  } else {
    continuation = await decide(spec, { ...target, approved: false, reason: input.reason, withdraw: input.withdraw });
  }
  return { accepted: true, runId: row.rootRunId, toolCallId: row.rootToolCallId, continuation };
}

/**
 * Approves or declines a pending call (behaviour §2). An approval executes the call once with the
 * stored args — or with `args`, validated against the tool's `inputSchema` and held to the bar of a
 * model's args, when a reviewer edits them; a decline never runs it and the model reads `reason`
 * (DEFAULT_DECLINE_REASON when missing or blank). The run then continues where it paused.
 *
 * @throws AgentError NO_SNAPSHOT_FOUND, TOOL_CALL_NOT_SUSPENDED, AMBIGUOUS_TOOL_CALL, ALREADY_DECIDED,
 *   FINGERPRINT_MISMATCH, WRONG_KIND, FOUR_EYES, INVALID_ARGS, QUORUM_NO_EDITS, EDIT_NEEDS_APPROVAL (edited
 *   args that need more than this approval: edit-approval.ts)
 */
export async function decide(spec: AgentSpec, input: DecisionInput & { approved: boolean; reason?: string; args?: unknown }) {
  const reason = declineReason(input);
  const decision = (editedFrom: unknown, at: string): DecisionSummary => ({
    approved: input.approved,
    ...(reason ? { reason } : {}),
    ...(editedFrom !== undefined ? { editedFrom } : {}),
    by: input.actor.id,
    at,
  });
  if (!(input.approved && input.args !== undefined)) {
    return claimAndContinue(spec, input, {
      kind: 'approval',
      status: input.approved ? 'approved' : 'declined',
      reason,
      resumeData: null,
      continuation: (row, at) => ({ approved: input.approved, args: row.args, reason: reason ?? undefined, decision: decision(undefined, at) }),
      summary: (at) => decision(undefined, at),
    });
  }
  // Edited arguments are validated against the tool's inputSchema before anything is claimed.
  const target = await findOpenCall(spec, input);
  const tool = checkDecidable(target.owner, target.row, input, 'approval');
  if (target.row.quorum) throw new AgentError('QUORUM_NO_EDITS', 'Several reviewers approve this call as it is; decline it with a reason instead of editing it.');
  const args = checkedEditedArgs(tool, input.args);
  const fingerprint = fingerprintToolCall({ toolName: target.row.toolName, args });
  const edited = fingerprint !== target.row.fingerprint;
  // What runs is decided by its own rules: an edit needing more than this approval is refused.
  if (edited) await checkEditedApproval({ owner: target.owner, tool, row: target.row, args, actor: input.actor, run: target.policyInputs });
  return claimAndContinue(spec, input, {
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
 * read the row first (`known`: to validate edited args or an answer), the claim is the first and
 * only statement before the tool runs: it compare-and-sets the row (open, of this kind, executable
 * here, the actor eligible, the fingerprint as seen), records the decision, takes the run's lease,
 * returns the run's state and appends the decision's chunks (`start`, `tool-call-resumed`), which
 * are published only after it committed. Only when it claimed nothing do the reads run that say why.
 *
 * @throws AgentError NO_SNAPSHOT_FOUND, TOOL_CALL_NOT_SUSPENDED, AMBIGUOUS_TOOL_CALL, ALREADY_DECIDED,
 *   WRONG_KIND, UNKNOWN_TOOL, FOUR_EYES, FINGERPRINT_MISMATCH
 */
async function claimAndContinue(spec: AgentSpec, input: DecisionInput, how: ClaimPlan): Promise<AgentStreamResult> {
  const at = new Date().toISOString();
  const fingerprint = input.fingerprint || undefined;
  const claim = (extra: Partial<ClaimInput>) =>
    spec.store.claimPendingCall({
      rootRunId: input.runId,
      toolCallId: input.toolCallId,
      agentId: spec.id,
      executable: executableTools(spec),
      kind: how.kind,
      fingerprint,
      actor: input.actor, withdraw: input.withdraw === true && how.status === 'declined',
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
    const chunks = decisionChunks(top, asClaimed, how.continuation(row, at).decision);
    const claimed = await claim({ pendingCallId: row.id, agentId: how.known.top.agentId, topEvents: chunks.top });
    if (!claimed) {
      await explainRefusal(spec, input, how.kind);
      throw alreadyDecided(row);
    }
    const continuation = how.continuation(row, at);
    return launch(spec, top, (segment) => continueAfterClaim(owner, segment, claimed, continuation, { saved: true }));
  }
  if (!how.summary) throw new Error('A claim without a read row needs the decision summary');
  // The decision's chunks are built from the row by the claim itself and commit with it (save, then publish).
  const summary = how.summary(at);
  let claimed: Claimed | null = null;
  if (how.byDeadline) {
    claimed = await claim({ pendingCallId: how.byDeadline.pendingCallId, byDeadline: true, decision: summary });
    if (!claimed) throw new AgentError('ALREADY_DECIDED', 'The call was decided before its deadline, or its deadline moved.');
  }
  for (let attempt = 1; !claimed; attempt += 1) {
    claimed = await claim({ decision: summary });
    if (claimed) break;
    const target = await explainRefusal(spec, input, how.kind);
    // A quorum call: this approval is a vote; only the vote that makes the quorum claims the call (quorum.ts).
    if (how.status === 'approved' && target.row.quorum) {
      const vote = await castQuorumVote(spec.store, target.row, input.actor);
      if (vote.outcome === 'counted') return voteResult(input.runId, target.top.messageId, vote.chunk);
    }
    // The reads found the call decidable after all: it changed in between (e.g. asked again); claim anew.
    if (attempt === 3) throw new AgentError('TOOL_CALL_NOT_SUSPENDED', 'The call kept changing; look at it again.');
  }
  const owner = findSpec(spec, claimed.call.agentId)!;
  const top = { id: input.runId, messageId: claimed.topMessageId };
  const continuation = how.continuation(claimed.call, at);
  return launch(spec, top, (segment) => continueAfterClaim(owner, segment, claimed, continuation, { saved: true }));
}

/**
 * Reads why a claim claimed nothing and throws it, checking in the order a reader would: the run,
 * the call, its kind, its tool, who decides, what they saw. Returns when the call is decidable now.
 */
async function explainRefusal(spec: AgentSpec, input: DecisionInput, kind: 'approval' | 'suspension') {
  const target = await findOpenCall(spec, input);
  checkDecidable(target.owner, target.row, input, kind);
  return target;
}

/**
 * The per-call checks of a decision on `row` (an open row of this agent).
 * @returns the row's tool
 * @throws AgentError WRONG_KIND, UNKNOWN_TOOL, FOUR_EYES, FINGERPRINT_MISMATCH
 */
function checkDecidable(owner: AgentSpec, row: PendingCall, input: DecisionInput, kind: 'approval' | 'suspension'): Tool {
  if (row.kind !== kind) {
    throw new AgentError('WRONG_KIND', kind === 'approval' ? 'This call asks for data, not for an approval.' : 'This call waits for an approval, not for data.');
  }
  const tool = requireTool(owner, row.toolName);
  (input.withdraw ? authorizeWithdrawal : authorize)(row, input.actor);
  if (input.fingerprint && input.fingerprint !== row.fingerprint) {
    throw new AgentError(
      'FINGERPRINT_MISMATCH',
      kind === 'approval' ? 'The call changed since it was shown; look at it again.' : 'The call changed since it was shown.',
    );
  }
  return tool;
}

/**
 * Finds the open row a decision on the top-level run addresses, by its qualified id (a sub-agent's
 * call: `<delegation id>~…~<own id>`, see call-id.ts); a leaf's own id or a delegation's id is
 * accepted while it names exactly one open call. One read.
 */
async function findOpenCall(spec: AgentSpec, input: DecisionInput): Promise<DecisionTarget> {
  const { run, calls, policyInputs } = await spec.store.loadDecisionTarget({ rootRunId: input.runId });
  if (!run || run.agentId !== spec.id || run.parentRunId !== null) {
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
  const owner = findSpec(spec, open[0].agentId);
  if (!owner) throw new AgentError('NO_SNAPSHOT_FOUND', `No agent ${open[0].agentId} under ${spec.id}.`);
  return { top: { id: run.id, messageId: run.messageId, agentId: run.agentId }, row: open[0], owner, policyInputs: policyInputs[open[0].runId] };
}

/**
 * Auto-resume (behaviour §3): the thread's single pending suspension is answered by `text` when the
 * model can extract data that passes the tool's `resumeSchema`. The claim closes the superseded
 * suspension, so it can never be answered twice.
 *
 * @param actor who sends the message (the run's requester); the answer is recorded as theirs
 * @returns the continuation, or null when nothing was resumed (the message starts a new run)
 */
export async function tryAutoResume(spec: AgentSpec, text: string, options: { threadId: string; resourceId: string; messageId?: string }, actor: Actor): Promise<AgentStreamResult | null> {
  const open = (await spec.store.findOpenPendingCalls({ threadId: options.threadId, resourceId: options.resourceId })).filter(
    (row) => findSpec(spec, row.agentId) !== undefined,
  );
  // Approvals are never auto-resumed, nor questions only a reviewer may answer (four-eyes); with
  // several calls open, guessing which is answered is unsafe.
  if (open.length !== 1 || open[0].kind !== 'suspension' || open[0].approvers === 'reviewer') return null;
  const [row] = open;
  const owner = findSpec(spec, row.agentId)!;
  const tool = owner.tools.get(row.toolName);
  if (!tool?.resumeSchema) return null;
  const extracted = await extractResumeData({ model: spec.model, schema: tool.resumeSchema, text, suspendPayload: row.suspendPayload });
  // The model's extraction is model output: data that could not be stored answers nothing.
  if (extracted === undefined || containsUnstorableText(extracted)) return null;
  const top = await spec.store.loadRun({ runId: row.rootRunId });
  if (!top?.state) return null;
  await spec.store.addUserMessage({ threadId: options.threadId, runId: top.id, message: { role: 'user', content: text } });
  // A new assistant message follows the user's answer; the run itself continues where it paused.
  return claimAndContinue(spec, 
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
