import 'server-only';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '@/lib/agent/json-depth';
import { errorResponse, readBodyText, toErrorResponse } from '@/lib/http/errors';

/**
 * The body limits of every other API route, in front of better-auth: at most MAX_BODY_BYTES, UTF-8,
 * and JSON nested no deeper than MAX_JSON_DEPTH (a body 100,000 levels deep must not reach a
 * recursive parser or validator).
 *
 * @returns the request to hand on (its body already read), or the error response:
 *   413 BODY_TOO_LARGE, 400 INVALID_BODY, 400 JSON_TOO_DEEP
 */
export async function guardAuthRequest(request: Request): Promise<Request | Response> {
  let text: string;
  try {
    text = await readBodyText(request);
  } catch (error) {
    return toErrorResponse(error);
  }
  let value: unknown;
  try {
    value = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: better-auth answers that itself.
  }
  if (exceedsJsonDepth(value)) {
    return errorResponse(400, 'JSON_TOO_DEEP', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  return new Request(request.url, { method: request.method, headers, body: text || undefined });
}

/**
 * Codes whose status is fixed whatever status better-auth answers with: an after hook can replace
 * an endpoint's error but not its status (lib/auth/guards.ts answers the wrong current password
 * that locks an account with ACCOUNT_LOCKED, which is 429 everywhere).
 */
const STATUS_OF_CODE: Record<string, number> = { ACCOUNT_LOCKED: 429 };

/**
 * better-auth answers errors as `{ code, message }`, which its browser client reads; API clients
 * of this app expect `{ error: { code, message } }`. An error response gets both, with the status
 * STATUS_OF_CODE fixes for its code.
 */
export async function withErrorEnvelope(response: Response): Promise<Response> {
  if (response.status < 400 || !response.headers.get('content-type')?.includes('application/json')) return response;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown; message?: unknown } | null;
  if (!body || typeof body !== 'object' || 'error' in body) return response;
  const code = typeof body.code === 'string' && body.code ? body.code : response.status === 429 ? 'RATE_LIMITED' : 'AUTH_ERROR';
  const message = typeof body.message === 'string' && body.message ? body.message : 'The request was refused.';
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...body, code, message, error: { code, message } }), { status: STATUS_OF_CODE[code] ?? response.status, headers });
}
