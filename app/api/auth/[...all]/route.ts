import { toNextJsHandler } from 'better-auth/next-js';
import { auth } from '@/lib/auth/auth';
import { guardAuthRequest, withErrorEnvelope } from '@/lib/auth/http';
import { errorResponse } from '@/lib/http/errors';

/**
 * The API-key and admin plugins' own endpoints are not served: keys are managed through /api/keys
 * and accounts through /api/admin/users, which check scopes and roles and write the audit.
 */
function closed(request: Request): Response | null {
  const { pathname } = new URL(request.url);
  return /^\/api\/auth\/(api-key|admin)(\/|$)/.test(pathname) ? errorResponse(404, 'NOT_FOUND', 'There is no such API route.') : null;
}

// Sign-in, sign-up, sign-out and session endpoints, served by better-auth.
export async function GET(request: Request) {
  return closed(request) ?? withErrorEnvelope(await toNextJsHandler(auth()).GET(request));
}

export async function POST(request: Request) {
  const refused = closed(request);
  if (refused) return refused;
  const guarded = await guardAuthRequest(request);
  if (guarded instanceof Response) return guarded;
  return withErrorEnvelope(await toNextJsHandler(auth()).POST(guarded));
}
