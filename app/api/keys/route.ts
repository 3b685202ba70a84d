import { createApiKey, createKeySchema, listApiKeys } from '@/lib/auth/api-keys';
import { requireActor } from '@/lib/auth/session';
import { readJson, withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/keys: your API keys (never their secrets), newest first → `{ keys: ApiKeySummary[] }`.
 * POST /api/keys `{ name, scopes, password, expiresInDays?, rateLimitPerMinute? }` → 201 `{ key, secret }`;
 * the secret is shown this once; `password` is the person's current password, asked again. At most
 * 10 active keys per person, 20 tries an hour. Signed-in session only (a key cannot manage keys).
 * Errors: 400 BAD_REQUEST, 401 UNAUTHENTICATED, 403 API_KEY_NOT_ALLOWED, 403 INVALID_PASSWORD,
 * 403 SCOPE_NOT_ALLOWED, 403 CSRF_ORIGIN, 409 TOO_MANY_KEYS, 429 RATE_LIMITED, 429 ACCOUNT_LOCKED.
 */
export const GET = withErrors(async (request: Request) => {
  const actor = await requireActor(request);
  return Response.json({ keys: await listApiKeys(actor.id) });
});

export const POST = withErrors(async (request: Request) => {
  const actor = await requireActor(request);
  const body = await readJson(request, createKeySchema);
  return Response.json(await createApiKey(actor, body, request.headers), { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET', 'POST');
