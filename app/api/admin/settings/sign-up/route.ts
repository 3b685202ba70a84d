import { requireActor } from '@/lib/auth/session';
import { readJson, withErrors } from '@/lib/http/errors';
import { setSignUpPolicy, signUpPolicy, signUpPolicySchema } from '@/lib/security/sign-up';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/admin/settings/sign-up → `{ enabled, domains, source }` (source: `database` when an
 * admin set it, else `environment`: SIGN_UP_ENABLED / SIGN_UP_EMAIL_DOMAINS).
 * PUT with `{ enabled, domains }` stores it (overriding the environment) → the policy in force.
 * Errors: 400 BAD_REQUEST, 401, 403 FORBIDDEN / API_KEY_NOT_ALLOWED / CSRF_ORIGIN.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  return Response.json(await signUpPolicy());
});

export const PUT = withErrors(async (request: Request) => {
  const admin = await requireActor(request, ['admin']);
  const body = await readJson(request, signUpPolicySchema);
  return Response.json(await setSignUpPolicy(admin, body));
});

export const { POST, PATCH, DELETE, OPTIONS } = otherMethods('GET', 'PUT');
