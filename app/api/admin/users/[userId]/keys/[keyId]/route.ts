import { revokeApiKey } from '@/lib/auth/api-keys';
import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ userId: string; keyId: string }> };

/**
 * DELETE /api/admin/users/{userId}/keys/{keyId}: an admin revokes one of that person's keys at once
 * → `{ key }` (status `revoked`); audited as `api_key.revoked` with the admin as actor.
 * Errors: 401 UNAUTHENTICATED, 403 FORBIDDEN / API_KEY_NOT_ALLOWED / CSRF_ORIGIN, 404 NOT_FOUND, 409 ALREADY_REVOKED.
 */
export const DELETE = withErrors(async (request: Request, { params }: Params) => {
  const admin = await requireActor(request, ['admin']);
  const { userId, keyId } = await params;
  return Response.json({ key: await revokeApiKey(admin, keyId, userId) });
});

export const { GET, POST, PUT, PATCH, OPTIONS } = otherMethods('DELETE');
