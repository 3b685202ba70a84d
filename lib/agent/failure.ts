import { APICallError, InvalidResponseDataError, LoadAPIKeyError, NoSuchModelError, RetryError, StreamProviderError } from 'ai';
import type { AgentErrorCode } from './errors';

/**
 * Why a run stopped with an error, in words a user may read. The codes tell apart a server whose
 * model provider is misconfigured (an administrator must act), a provider that is busy (wait and
 * try again) and one that is down or broke off its answer (try again later), from the runtime's own
 * failures. Messages never carry the provider's response body, headers or the API key.
 */
export type RunFailureCode = Extract<
  AgentErrorCode,
  'MODEL_PROVIDER_CONFIG' | 'MODEL_PROVIDER_BUSY' | 'MODEL_PROVIDER_DOWN' | 'MODEL_PROVIDER_REJECTED' | 'MODEL_OUTPUT_LIMIT' | 'RUN_FAILED' | 'RUN_INTERRUPTED'
>;

export interface RunFailure {
  code: RunFailureCode;
  /** Safe to show. */
  message: string;
  /** The provider's HTTP status, when it answered with one. */
  providerStatus?: number;
}

/** The message of a runtime failure that is not the model's (a bug, a lost database connection). */
export const GENERIC_RUN_FAILURE = 'The agent stopped because of an error. Try again.';

const brokeOff = "The model provider's answer broke off before it was complete. Try again.";

/** A model stream that ended without finishing its answer (e.g. a cut connection). */
export const ANSWER_BROKE_OFF: RunFailure = { code: 'MODEL_PROVIDER_DOWN', message: brokeOff };

/**
 * A step whose answer the output-token limit cut off inside a tool call (`finish_reason: length`,
 * `max_output_tokens`, Anthropic `max_tokens`): its calls are dropped, nothing runs, and the model is
 * not asked again (it would be cut off the same way).
 */
export const CUT_OFF_IN_TOOL_CALL: RunFailure = {
  code: 'MODEL_OUTPUT_LIMIT',
  message: "The answer was cut off by the model's output limit in the middle of a tool call, so nothing was run. Ask for less at once, or raise the model's output limit.",
};

/** What the chat shows under a text answer the output-token limit cut off (the run completes). */
export const TEXT_CUT_OFF = "The answer was cut off by the model's output limit.";

/** What a user reads when the provider sent nothing for the step's idle timeout (MODEL_IDLE_TIMEOUT_MS). */
export function stoppedAnswering(idleMs: number): RunFailure {
  const span = idleMs >= 1_000 ? `${Math.round(idleMs / 1_000)} s` : `${idleMs} ms`;
  return { code: 'MODEL_PROVIDER_DOWN', message: `The model provider stopped answering (nothing for ${span}). Try again later.` };
}

/**
 * The reason a model step aborts its provider request with when nothing arrived for its idle
 * timeout (idle.ts). Not named `AbortError`/`TimeoutError`, so the AI SDK's retry treats a stall
 * before the answer started like any retryable provider failure (model-step.ts).
 */
export class ModelIdleTimeoutError extends Error {
  readonly idleMs: number;

  constructor(idleMs: number) {
    super(`no data from the model provider for ${idleMs} ms`);
    this.name = 'ModelIdleTimeoutError';
    this.idleMs = idleMs;
  }
}

/** An error of the model call itself (the provider, or its stream), classified for the user. */
export class ModelCallError extends Error {
  readonly failure: RunFailure;

  constructor(failure: RunFailure, options?: { cause?: unknown }) {
    super(failure.message, options);
    this.name = 'ModelCallError';
    this.failure = failure;
  }
}

function statusOf(error: unknown): number | undefined {
  if (APICallError.isInstance(error)) return error.statusCode;
  // A provider's in-stream error event (e.g. Anthropic's `overloaded_error`) carries a status too.
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function byStatus(status: number, attempts: number): RunFailure {
  const tries = attempts > 1 ? `, ${attempts} attempts` : '';
  // A successful response whose body failed while it streamed (a cut connection).
  if (status < 400) return { ...ANSWER_BROKE_OFF, providerStatus: status };
  if (status === 401 || status === 403) {
    return {
      code: 'MODEL_PROVIDER_CONFIG',
      providerStatus: status,
      message: `The model provider refused this server's credentials (HTTP ${status}). An administrator needs to check the API key; trying again will not help.`,
    };
  }
  if (status === 404) {
    return {
      code: 'MODEL_PROVIDER_CONFIG',
      providerStatus: status,
      message: `The model provider does not know the configured model (HTTP 404). An administrator needs to check the MODEL setting.`,
    };
  }
  if (status === 429 || status === 529) {
    return {
      code: 'MODEL_PROVIDER_BUSY',
      providerStatus: status,
      message: `The model provider is busy (HTTP ${status}${tries}). Try again in a minute.`,
    };
  }
  if (status === 408 || status >= 500) {
    return {
      code: 'MODEL_PROVIDER_DOWN',
      providerStatus: status,
      message: `The model provider is not working right now (HTTP ${status}${tries}). Try again later.`,
    };
  }
  return {
    code: 'MODEL_PROVIDER_REJECTED',
    providerStatus: status,
    message: `The model provider rejected the request (HTTP ${status}).`,
  };
}

/**
 * Classifies an error thrown by a model call: 401/403/404 and missing keys → configuration;
 * 429/529 → busy; 408, 5xx, unreachable, a stream that broke off (also after a 200), a provider
 * that stopped answering (ModelIdleTimeoutError) → down; other
 * 4xx → rejected;
 * anything else → RUN_FAILED with the generic message. Retries the AI SDK made are unwrapped and
 * counted.
 *
 * @param error what the AI SDK threw or streamed as an `error` part
 */
export function classifyModelError(error: unknown): RunFailure {
  let cause = error;
  let attempts = 1;
  if (RetryError.isInstance(error)) {
    cause = error.lastError;
    attempts = error.errors.length;
  }
  if (cause instanceof ModelIdleTimeoutError) {
    const failure = stoppedAnswering(cause.idleMs);
    return attempts > 1 ? { ...failure, message: failure.message.replace(').', `, ${attempts} attempts).`) } : failure;
  }
  if (LoadAPIKeyError.isInstance(cause) || NoSuchModelError.isInstance(cause)) {
    return { code: 'MODEL_PROVIDER_CONFIG', message: 'The model is not configured on this server. An administrator needs to check its settings.' };
  }
  const status = statusOf(cause);
  if (status !== undefined) return byStatus(status, attempts);
  if (StreamProviderError.isInstance(cause)) return byStreamErrorKind(cause);
  if (APICallError.isInstance(cause)) {
    const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
    return { code: 'MODEL_PROVIDER_DOWN', message: `The model provider could not be reached${tries}. Try again later.` };
  }
  if (InvalidResponseDataError.isInstance(cause) || isConnectionLoss(cause)) {
    return { code: 'MODEL_PROVIDER_DOWN', message: brokeOff };
  }
  if (cause instanceof Error && cause.name === 'TimeoutError') {
    return { code: 'MODEL_PROVIDER_DOWN', message: 'The model provider did not answer in time. Try again later.' };
  }
  return { code: 'RUN_FAILED', message: GENERIC_RUN_FAILURE };
}


/**
 * An error event inside a provider's stream that names no HTTP status (e.g. an OpenAI-compatible
 * server's `data: {"error": {"type": "server_error", …}}`), classified by its type and code: rate
 * limits and overload → busy; content policy, safety, refusal → rejected (refused); anything else → down.
 */
function byStreamErrorKind(error: StreamProviderError): RunFailure {
  const kind = `${error.type ?? ''} ${error.code ?? ''}`;
  if (/rate.?limit|too.?many|overload|capacity|quota|busy/i.test(kind)) {
    return { code: 'MODEL_PROVIDER_BUSY', message: 'The model provider is busy (it said so in its answer). Try again in a minute.' };
  }
  if (/content|policy|safety|refus|moderation|filter/i.test(kind)) {
    return { code: 'MODEL_PROVIDER_REJECTED', message: 'The model provider refused to answer this request (it said so in its answer).' };
  }
  return { code: 'MODEL_PROVIDER_DOWN', message: 'The model provider reported an error in the middle of its answer. Try again later.' };
}

/** undici's errors for a connection that closed or reset while a response streamed. */
function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TypeError' && /terminated|fetch failed|other side closed/i.test(error.message)) return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^(ECONNRESET|ECONNREFUSED|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code);
}

/**
 * The run error a user reads: what failed, and — when tools already ran in this run — that those
 * actions stay done and the agent will know about them (they are kept in the thread's memory), so
 * asking again does not silently repeat them.
 *
 * @param failure the classified failure
 * @param done names of tools that ran (or whose outcome is unknown) in the failed run
 */
export function runErrorMessage(failure: RunFailure, done: string[]): string {
  if (done.length === 0) return failure.message;
  const names = [...new Set(done)].join(', ');
  return `${failure.message} Already done before the error: ${names} — see above; that stays done, only the answer is missing, and the agent will know about it when you write again.`;
}
