/**
 * Error codes the runtime throws, each with the HTTP status a route handler answers with.
 * Source: behaviour §1–3 and §7.
 */
export const AGENT_ERROR_STATUS = {
  NO_SNAPSHOT_FOUND: 404,
  TOOL_CALL_NOT_SUSPENDED: 404,
  AMBIGUOUS_TOOL_CALL: 409,
  ALREADY_DECIDED: 409,
  /** A reviewer's second approval of a quorum call (their first still counts). */
  ALREADY_VOTED: 409,
  /** Approve-with-edits on a quorum call: every voter must approve the same arguments. */
  QUORUM_NO_EDITS: 409,
  /** Approve-with-edits whose edited call needs more than this approval (a quorum, another approver, another rule). */
  EDIT_NEEDS_APPROVAL: 409,
  FINGERPRINT_MISMATCH: 409,
  /** A new message on a thread whose turn is still running (one turn of a thread at a time; stop.ts). */
  RUN_IN_PROGRESS: 409,
  WRONG_KIND: 409,
  FOUR_EYES: 403,
  /** A decision on a call a deadline escalated, by someone without the escalation role (admins). */
  ESCALATED_TO_ADMINS: 403,
  NOT_REQUESTER: 403,
  INVALID_RESUME_DATA: 422,
  INVALID_ARGS: 422,
  UNKNOWN_AGENT: 404,
  UNKNOWN_TOOL: 404,
  BAD_REQUEST: 400,
  INVALID_INPUT: 400,
  // A run that failed, as a `generate` route answers it (see failure.ts): the model provider is
  // misconfigured, busy, down or refused the request, or the runtime itself failed.
  MODEL_PROVIDER_CONFIG: 502,
  MODEL_PROVIDER_BUSY: 503,
  MODEL_PROVIDER_DOWN: 502,
  MODEL_PROVIDER_REJECTED: 502,
  /** The model's answer was cut off by its output-token limit inside a tool call (nothing ran). */
  MODEL_OUTPUT_LIMIT: 502,
  RUN_FAILED: 500,
  RUN_INTERRUPTED: 500,
} as const;

export type AgentErrorCode = keyof typeof AGENT_ERROR_STATUS;

/** An expected, user-facing failure of a runtime call. `message` is safe to show. */
export class AgentError extends Error {
  readonly code: AgentErrorCode;
  readonly status: number;
  readonly details?: unknown;

  constructor(code: AgentErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'AgentError';
    this.code = code;
    this.status = AGENT_ERROR_STATUS[code];
    this.details = details;
  }
}
