import { updateUser, updateUserSchema } from '@/lib/admin/users';
import { requireActor } from '@/lib/auth/session';
import { readJson, withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ userId: string }> };

/**
 * PATCH /api/admin/users/{userId} with `{ role }`, `{ active: false, reason? }` (deactivate: sessions
 * and API keys revoked at once) or `{ active: true }` → `{ user }`.
 * Errors: 400 BAD_REQUEST, 401, 403 FORBIDDEN / API_KEY_NOT_ALLOWED / CSRF_ORIGIN, 404 NOT_FOUND,
 * 409 LAST_ADMIN, 409 CANNOT_DEACTIVATE_SELF, 409 NO_CHANGE.
 */
export const PATCH = withErrors(async (request: Request, { params }: Params) => {
  const admin = await requireActor(request, ['admin']);
  const body = await readJson(request, updateUserSchema);
  return Response.json({ user: await updateUser(admin, (await params).userId, body, request.headers) });
});

export const { GET, POST, PUT, DELETE, OPTIONS } = otherMethods('PATCH');
