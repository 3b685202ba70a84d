import { describe, expect, it } from 'vitest';
import { AGENT_ERROR_STATUS, AgentError } from './errors';

describe('AGENT_ERROR_STATUS', () => {
  it('answers each runtime error code with its HTTP status', () => {
    expect(AGENT_ERROR_STATUS).toStrictEqual({
      NO_SNAPSHOT_FOUND: 404,
      TOOL_CALL_NOT_SUSPENDED: 404,
      AMBIGUOUS_TOOL_CALL: 409,
      ALREADY_DECIDED: 409,
      ALREADY_VOTED: 409,
      QUORUM_NO_EDITS: 409,
      EDIT_NEEDS_APPROVAL: 409,
      FINGERPRINT_MISMATCH: 409,
      RUN_IN_PROGRESS: 409,
      WRONG_KIND: 409,
      FOUR_EYES: 403,
      ESCALATED_TO_ADMINS: 403,
      NOT_REQUESTER: 403,
      INVALID_RESUME_DATA: 422,
      INVALID_ARGS: 422,
      UNKNOWN_AGENT: 404,
      UNKNOWN_TOOL: 404,
      BAD_REQUEST: 400,
      INVALID_INPUT: 400,
      // A failed run, as a generate route answers it.
      MODEL_PROVIDER_CONFIG: 502,
      MODEL_PROVIDER_BUSY: 503,
      MODEL_PROVIDER_DOWN: 502,
      MODEL_PROVIDER_REJECTED: 502,
      MODEL_OUTPUT_LIMIT: 502,
      RUN_FAILED: 500,
      RUN_INTERRUPTED: 500,
    });
  });
});

describe('AgentError', () => {
  it('carries the code, the status of its code, the message and the details', () => {
    const error = new AgentError('ALREADY_DECIDED', 'Rita already approved this.', { decidedBy: 'rita' });
    expect(error).toBeInstanceOf(Error);
    expect({ name: error.name, code: error.code, status: error.status, message: error.message, details: error.details }).toStrictEqual({
      name: 'AgentError',
      code: 'ALREADY_DECIDED',
      status: 409,
      message: 'Rita already approved this.',
      details: { decidedBy: 'rita' },
    });
  });

  it('takes its status from the code', () => {
    expect(new AgentError('FOUR_EYES', 'x').status).toBe(403);
    expect(new AgentError('INVALID_RESUME_DATA', 'x').status).toBe(422);
    expect(new AgentError('TOOL_CALL_NOT_SUSPENDED', 'x').status).toBe(404);
    expect(new AgentError('BAD_REQUEST', 'x').details).toBeUndefined();
  });
});
