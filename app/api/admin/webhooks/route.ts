import { requireActor } from '@/lib/auth/session';
import { readJson, withErrors } from '@/lib/http/errors';
import { createWebhookEndpoint, createWebhookSchema, listWebhookEndpoints } from '@/lib/webhooks/endpoints';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/admin/webhooks → `{ endpoints }` (never their secrets).
 * POST /api/admin/webhooks `{ url, description?, events, enabled? }` → 201 `{ endpoint, secret }`
 * (the secret is shown this once). Admins with a session only.
 * Errors: 400 BAD_REQUEST, 400 INVALID_WEBHOOK_URL, 400 WEBHOOK_PRIVATE_ADDRESS, 401 UNAUTHENTICATED, 403 FORBIDDEN,
 * 403 API_KEY_NOT_ALLOWED, 403 CSRF_ORIGIN.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  return Response.json({ endpoints: await listWebhookEndpoints() });
});

export const POST = withErrors(async (request: Request) => {
  const admin = await requireActor(request, ['admin']);
  const body = await readJson(request, createWebhookSchema);
  return Response.json(await createWebhookEndpoint(admin, body), { status: 201 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET', 'POST');
