import { resetPassword } from '@/lib/admin/users';
import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ userId: string }> };

/**
 * POST /api/admin/users/{userId}/password: a new temporary password (shown once); the account is
 * signed out everywhere → `{ temporaryPassword }`.
 * Errors: 401, 403 FORBIDDEN / API_KEY_NOT_ALLOWED / CSRF_ORIGIN, 404 NOT_FOUND.
 */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const admin = await requireActor(request, ['admin']);
  return Response.json(await resetPassword(admin, (await params).userId, request.headers));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
