import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/me: who the request acts as, from its session or its API key (any valid key, whatever
 * its scopes) → `{ id, name, email, role, apiKey: { id, scopes } | null }`. `id` is the user id the
 * agents API takes as `resourceId` (which defaults to it).
 * Errors: 401 UNAUTHENTICATED and the key errors (API_KEY_INVALID, API_KEY_REVOKED, API_KEY_EXPIRED,
 * ACCOUNT_DEACTIVATED), 429 RATE_LIMITED (the key's own limit).
 */
export const GET = withErrors(async (request: Request) => {
  const actor = await requireActor(request);
  return Response.json(
    { id: actor.id, name: actor.name, email: actor.email, role: actor.role, apiKey: actor.apiKey ? { id: actor.apiKey.id, scopes: actor.apiKey.scopes } : null },
    { headers: { 'cache-control': 'no-store' } },
  );
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
