import { listApiKeys } from '@/lib/auth/api-keys';
import { requireActor } from '@/lib/auth/session';
import { ApiError, withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';
import { prisma } from '@/lib/store/db';

type Params = { params: Promise<{ userId: string }> };

/**
 * GET /api/admin/users/{userId}/keys: one person's API keys (never their secrets), newest first →
 * `{ keys: ApiKeySummary[] }`. Admins only, with a session.
 * Errors: 401 UNAUTHENTICATED, 403 FORBIDDEN / API_KEY_NOT_ALLOWED, 404 NOT_FOUND (no such account).
 */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  await requireActor(request, ['admin']);
  const { userId } = await params;
  if (!(await prisma().user.findUnique({ where: { id: userId }, select: { id: true } }))) throw new ApiError(404, 'NOT_FOUND', 'There is no such account.');
  return Response.json({ keys: await listApiKeys(userId) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
