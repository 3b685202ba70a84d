import { requireSignedIn } from '@/lib/auth/session';
import { ApiError, withErrors } from '@/lib/http/errors';

/** Any other /api path: JSON errors like every API route (401 without a session or a valid API key, else 404). */
async function notFound(request: Request): Promise<Response> {
  await requireSignedIn(request);
  throw new ApiError(404, 'NOT_FOUND', 'There is no such API route.');
}

export const GET = withErrors(notFound);
export const POST = withErrors(notFound);
export const PUT = withErrors(notFound);
export const PATCH = withErrors(notFound);
export const DELETE = withErrors(notFound);
