import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { threadParamsSchema } from '@/lib/chat/thread-id';
import { SCOPES } from '@/lib/auth/scopes';

/** The shapes and helpers every part of the OpenAPI description uses (./document.ts). */

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable code, e.g. ALREADY_DECIDED, INSUFFICIENT_SCOPE' }),
      message: z.string().meta({ description: 'A sentence safe to show to a person' }),
      details: z.unknown().optional(),
    }),
  })
  .meta({ id: 'Error', description: 'Every error answer: `{ error: { code, message, details? } }`' });

export const ERROR_TEXT: Record<number, string> = {
  400: 'The request is not valid (BAD_REQUEST, INVALID_JSON, JSON_TOO_DEEP, INVALID_BODY)',
  401: 'Not signed in (UNAUTHENTICATED), or the API key is invalid, revoked, expired or its owner deactivated (API_KEY_INVALID, API_KEY_REVOKED, API_KEY_EXPIRED, ACCOUNT_DEACTIVATED)',
  403: 'Not allowed: another role (FORBIDDEN), the key lacks the scope (INSUFFICIENT_SCOPE) or may not use this route (API_KEY_NOT_ALLOWED), or a cross-site request (CSRF_ORIGIN)',
  404: 'Not found, or not yours (NOT_FOUND, NO_SNAPSHOT_FOUND, UNKNOWN_AGENT)',
  409: 'Conflicts with the current state (e.g. ALREADY_DECIDED, AMBIGUOUS_TOOL_CALL, LAST_ADMIN)',
  413: 'The body is too large (BODY_TOO_LARGE, MESSAGE_TOO_LONG)',
  422: 'Well-formed but refused (e.g. INVALID_RESUME_DATA, INVALID_ARGS)',
  429: 'Too many requests (RATE_LIMITED, TOO_MANY_STREAMS); see Retry-After',
  500: 'Something failed on the server (INTERNAL, RUN_FAILED)',
  502: 'The model provider failed (MODEL_PROVIDER_CONFIG, MODEL_PROVIDER_DOWN, MODEL_PROVIDER_REJECTED)',
  503: 'The model provider is busy (MODEL_PROVIDER_BUSY)',
};

export function errors(...statuses: number[]): Record<string, { description: string; content: { 'application/json': { schema: typeof errorBody } } }> {
  return Object.fromEntries(statuses.map((status) => [String(status), { description: ERROR_TEXT[status], content: { 'application/json': { schema: errorBody } } }]));
}

export const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
export const sse = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: z.string().meta({ description: 'Server-Sent Events: `data: <json chunk>` lines' }) } },
});
export const body = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
export const anyObject = (id: string, description: string) => z.looseObject({}).meta({ id, description });

export const pathParams = <K extends string>(...names: K[]) => ({ path: z.object(Object.fromEntries(names.map((name) => [name, z.string()])) as Record<K, z.ZodString>) });
/** The `{id}` of a route addressing one thread: THREAD_ID (pattern, minLength, maxLength), as in every body and query. */
export const threadParams = { path: threadParamsSchema };

/** Who may call: a session, and/or an API key with a scope. */
export function access(scope: (typeof SCOPES)[number] | null, roles = 'any signed-in person'): Pick<ZodOpenApiOperationObject, 'security' | 'description'> {
  return {
    security: scope ? [{ session: [] }, { bearer: [] }, { apiKey: [] }] : [{ session: [] }],
    description: `Who: ${roles}. ${scope ? `API keys need the scope \`${scope}\`.` : 'A signed-in session only (no API key).'}`,
  };
}
