import { createUser, createUserSchema, listUsers } from '@/lib/admin/users';
import { requireActor } from '@/lib/auth/session';
import { readJson, withErrors } from '@/lib/http/errors';
import { signUpPolicy } from '@/lib/security/sign-up';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/admin/users → `{ users: ManagedUser[], signUp: { enabled, domains, source } }`.
 * POST /api/admin/users `{ name, email, role }` → 201 `{ user, temporaryPassword }` (shown once).
 * Admins with a session only. Errors: 400 BAD_REQUEST, 401 UNAUTHENTICATED, 403 FORBIDDEN,
 * 403 API_KEY_NOT_ALLOWED, 403 CSRF_ORIGIN, 409 EMAIL_TAKEN.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  return Response.json({ users: await listUsers(), signUp: await signUpPolicy() });
});

export const POST = withErrors(async (request: Request) => {
  const admin = await requireActor(request, ['admin']);
  const body = await readJson(request, createUserSchema);
  return Response.json(await createUser(admin, body, request.headers), { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET', 'POST');
