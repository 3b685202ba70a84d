import { revokeApiKey } from '@/lib/auth/api-keys';
import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ keyId: string }> };

/**
 * DELETE /api/keys/{keyId}: revokes one of your keys at once → `{ key }` (status `revoked`).
 * Errors: 401 UNAUTHENTICATED, 403 API_KEY_NOT_ALLOWED, 403 CSRF_ORIGIN, 404 NOT_FOUND, 409 ALREADY_REVOKED.
 */
export const DELETE = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  return Response.json({ key: await revokeApiKey(actor, (await params).keyId) });
});

export const { GET, POST, PUT, PATCH, OPTIONS } = otherMethods('DELETE');
