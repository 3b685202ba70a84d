/**
 * Chunks of an agent's `fullStream`. Envelope `{ type, runId, from: 'AGENT', payload }`.
 * Source: behaviour §1 "Stream chunks".
 */

/** The decision that cleared a pending call, as shown on cards. `at` is an ISO 8601 time. */
export interface DecisionSummary {
  approved?: boolean;
  reason?: string;
  by: string;
  at: string;
  /** What a suspended call was resumed with. */
  resumeData?: unknown;
  /** When a reviewer approved with edited args: the args as first asked (the card's args are the edited ones). */
  editedFrom?: unknown;
}

export interface ChunkPayloads {
  /** `takeover`: this segment continues a run whose process died; the unfinished step it runs again was dropped from the log. */
  start: { messageId: string; threadId: string; takeover?: true };
  'step-start': { step: number };
  'text-start': { id: string };
  'text-delta': { id: string; text: string };
  'text-end': { id: string };
  /** The model's reasoning (thinking) as it streams; the chat shows it collapsed. */
  'reasoning-start': { id: string };
  'reasoning-delta': { id: string; text: string };
  'reasoning-end': { id: string };
  'tool-call': { toolCallId: string; toolName: string; args: unknown };
  'tool-result': { toolCallId: string; toolName: string; args: unknown; result: unknown };
  'tool-error': { toolCallId: string; toolName: string; args: unknown; error: string };
  'tool-call-approval': {
    toolCallId: string;
    toolName: string;
    args: unknown;
    resumeSchema: string;
    fingerprint: string;
    policy: string;
    approvers: 'requester' | 'reviewer';
    /** Why the call waits, naming the rule and its values (from the stored policy evaluation). */
    why?: string;
    /** Distinct reviewers whose approval is needed, when more than one. */
    quorum?: number;
    /** For a quorum call: approvals so far (a vote publishes the call's card again with the new count). */
    approvals?: number;
    /** For a quorum call: the reviewers who approved so far, in order. */
    approvedBy?: string[];
    chain?: string[];
    /**
     * For a sub-agent's call surfacing at the top: the call's own id. `toolCallId` is then its
     * qualified id, `<top-level delegation id>~…~<own id>` (see call-id.ts).
     */
    leafToolCallId?: string;
  };
  'tool-call-suspended': {
    toolCallId: string;
    toolName: string;
    args: unknown;
    suspendPayload: unknown;
    resumeSchema: string;
    chain?: string[];
    leafToolCallId?: string;
  };
  'tool-call-resumed': {
    toolCallId: string;
    toolName: string;
    kind: 'approval' | 'suspension';
    args: unknown;
    suspendPayload?: unknown;
    resumeSchema: string;
    fingerprint: string;
    approvers: 'requester' | 'reviewer';
    /** Why the call waited (see `tool-call-approval`). */
    why?: string;
    chain?: string[];
    leafToolCallId?: string;
    /** A quorum call: how many approvals it needed, and who approved it, in order. */
    quorum?: number;
    approvedBy?: string[];
    decision: DecisionSummary;
  };
  'tool-output-denied': {
    toolCallId: string;
    toolName: string;
    args: unknown;
    approval: { approved: false; reason: string };
  };
  'step-finish': { step: number; finishReason: string };
  /** `content-filter`: the model declined to answer (an `error` chunk with code MODEL_REFUSED says so). */
  finish: { finishReason: 'stop' | 'suspended' | 'length' | 'error' | 'tool-calls' | 'content-filter' | 'other' };
  /**
   * A message for the user, safe to show. `code` says what kind of failure it is: MODEL_PROVIDER_CONFIG,
   * MODEL_PROVIDER_BUSY, MODEL_PROVIDER_DOWN, MODEL_PROVIDER_REJECTED, RUN_FAILED, RUN_INTERRUPTED
   * (the run failed; the segment then finishes with `error`), RUN_STOPPED (someone pressed Stop; the
   * run is `cancelled` and the segment finishes with `other`), or MODEL_REFUSED (the run goes on).
   * MODEL_OUTPUT_LIMIT: the output-token limit cut the answer off — inside a tool call the run
   * failed (nothing ran); under a text answer the run completes with `finish` `length`.
   */
  error: { message: string; code?: string };
}

export type ChunkType = keyof ChunkPayloads;

export type AgentChunk = {
  [T in ChunkType]: { type: T; runId: string; from: 'AGENT'; payload: ChunkPayloads[T] };
}[ChunkType];

export type ChunkOf<T extends ChunkType> = Extract<AgentChunk, { type: T }>;
