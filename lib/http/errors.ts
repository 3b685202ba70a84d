import 'server-only';
import { z } from 'zod';
import { AGENT_ERROR_STATUS, AgentError, type AgentErrorCode } from '@/lib/agent/errors';
import type { GenerateResult } from '@/lib/agent/generate';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '@/lib/agent/json-depth';

/** An HTTP error with a stable code and a message safe to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** `{ error: { code, message, details? } }` with the given status. Source: behaviour §7. */
export function errorResponse(status: number, code: string, message: string, details?: unknown): Response {
  return Response.json({ error: { code, message, ...(details === undefined ? {} : { details }) } }, { status });
}

/** Maps any thrown value to an error response; unknown errors are logged and stay generic. */
export function toErrorResponse(error: unknown): Response {
  if (error instanceof ApiError) {
    const response = errorResponse(error.status, error.code, error.message, error.details);
    const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
    if (error.status === 429 && retryAfter) response.headers.set('retry-after', String(retryAfter));
    return response;
  }
  if (error instanceof AgentError) return errorResponse(error.status, error.code, error.message, error.details);
  if (error instanceof z.ZodError) return errorResponse(400, 'BAD_REQUEST', invalidRequestMessage(error), error.issues);
  console.error('[api] unexpected error', error);
  return errorResponse(500, 'INTERNAL', 'Something went wrong on our side. Try again.');
}

/**
 * The HTTP answer of a `generate` route: `200` with the result, or — when the run failed — the
 * status of its error code (502 MODEL_PROVIDER_CONFIG / _DOWN / _REJECTED, 503 MODEL_PROVIDER_BUSY,
 * 500 RUN_FAILED) as `{ error: { code, message, details: { runId, text, toolCalls, toolResults } } }`,
 * so a client sees what already ran before the failure.
 */
export function generateResponse(result: GenerateResult): Response {
  if (!result.error) return Response.json(result);
  const code = (result.error.code in AGENT_ERROR_STATUS ? result.error.code : 'RUN_FAILED') as AgentErrorCode;
  const { runId, text, toolCalls, toolResults } = result;
  return errorResponse(AGENT_ERROR_STATUS[code], code, result.error.message, { runId, text, toolCalls, toolResults });
}

/**
 * Refuses an address whose path or query holds a NUL (`%00`): PostgreSQL cannot store or compare
 * it, so an id or filter carrying one would fail in the database as a 500. (Invalid UTF-8 such as
 * an encoded lone surrogate never gets this far: Next answers 400 for it, and a query decodes it
 * to U+FFFD.)
 * @throws ApiError 400 INVALID_TEXT
 */
export function checkUrlText(request: Request) {
  if (/%00/i.test(request.url)) throw new ApiError(400, 'INVALID_TEXT', 'The address contains a NUL character (%00).');
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * CSRF defence for state-changing requests: a browser always sends `Origin` with them, and it must
 * name this server. Requests without `Origin` (server-to-server clients) still need a session.
 * @throws ApiError 403 CSRF_ORIGIN
 */
export function checkOrigin(request: Request) {
  if (!STATE_CHANGING.has(request.method)) return;
  const origin = request.headers.get('origin');
  if (origin === null) return;
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  let originHost: string | null = null;
  try {
    originHost = new URL(origin).host;
  } catch {
    // "null" or garbage: refused below.
  }
  if (!host || originHost !== host) throw new ApiError(403, 'CSRF_ORIGIN', 'Cross-site requests are not allowed.');
}

/** Wraps a route handler: the CSRF origin check first, then every failure becomes a JSON error response. */
export function withErrors<A extends [Request, ...unknown[]]>(handler: (...args: A) => Promise<Response>) {
  return async (...args: A): Promise<Response> => {
    try {
      checkUrlText(args[0]);
      checkOrigin(args[0]);
      return await handler(...args);
    } catch (error) {
      return toErrorResponse(error);
    }
  };
}

/** Largest JSON body accepted, in bytes. */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * Reads a request body as text, stopping as soon as it passes MAX_BODY_BYTES (a chunked upload
 * without Content-Length is never buffered whole).
 * @throws ApiError 413 BODY_TOO_LARGE, 400 INVALID_BODY (not UTF-8)
 */
export async function readBodyText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw new ApiError(413, 'BODY_TOO_LARGE', 'The request body is too large.');
  if (!request.body) return '';
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw new ApiError(413, 'BODY_TOO_LARGE', 'The request body is too large.');
    }
    parts.push(value);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(parts));
  } catch {
    throw new ApiError(400, 'INVALID_BODY', 'The request body is not UTF-8 text.');
  }
}

/** A NUL character or a lone UTF-16 surrogate: text PostgreSQL cannot store. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first string inside `value` that PostgreSQL could not store, if any. */
function findUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(findUnstorable);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, item]) => UNSTORABLE.test(key) || findUnstorable(item));
  return false;
}

/**
 * Parses and validates a JSON body.
 * @throws ApiError 400 INVALID_JSON, 400 JSON_TOO_DEEP (nested deeper than MAX_JSON_DEPTH), 400 INVALID_TEXT
 *   (NUL or lone surrogates), 400 BAD_REQUEST (zod issues in details)
 */
export function parseJson<S extends z.ZodType>(text: string, schema: S): z.infer<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'INVALID_JSON', 'The request body is not valid JSON.');
  }
  // Checked first: every later step (the text check, zod) walks the value recursively.
  if (exceedsJsonDepth(value)) {
    throw new ApiError(400, 'JSON_TOO_DEEP', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  if (findUnstorable(value)) throw new ApiError(400, 'INVALID_TEXT', 'The request contains a NUL character or broken Unicode.');
  return parseValue(value, schema);
}

/**
 * Validates a value already read (a query's fields, a path's params).
 * @throws ApiError 400 BAD_REQUEST, its message naming the first problem, zod's issues in details
 */
export function parseValue<S extends z.ZodType>(value: unknown, schema: S): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError(400, 'BAD_REQUEST', invalidRequestMessage(parsed.error), parsed.error.issues);
  return parsed.data;
}

/**
 * One sentence for a refused request: where the first problem is and what it is ("The request is
 * not valid: messages[0].parts: expected array, received undefined."), and how many more the
 * details list. The details keep zod's issues, path and code each.
 */
export function invalidRequestMessage(error: z.ZodError): string {
  const [first, ...rest] = error.issues;
  if (!first) return 'The request is not valid.';
  const where = first.path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), '');
  const what = first.message.replace(/^Invalid input: /, '').replace(/\.$/, '');
  const more = rest.length > 0 ? ` (${rest.length} more in details)` : '';
  return `The request is not valid: ${where ? `${where}: ` : ''}${what}${more}.`;
}

/**
 * Reads and validates a JSON body.
 * @throws ApiError 413 BODY_TOO_LARGE, 400 INVALID_JSON, 400 BAD_REQUEST (zod issues in details)
 */
export async function readJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  return parseJson(await readBodyText(request), schema);
}
