import { requireActor } from '@/lib/auth/session';
import { readJson, withErrors } from '@/lib/http/errors';
import { deleteWebhookEndpoint, updateWebhookEndpoint, updateWebhookSchema } from '@/lib/webhooks/endpoints';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ endpointId: string }> };

/**
 * PATCH /api/admin/webhooks/{endpointId} `{ url?, description?, events?, enabled? }` → `{ endpoint }`.
 * DELETE /api/admin/webhooks/{endpointId} → `{ id }` (its deliveries go with it).
 * Errors: 400 BAD_REQUEST, 400 INVALID_WEBHOOK_URL, 400 WEBHOOK_PRIVATE_ADDRESS, 401, 403 FORBIDDEN / API_KEY_NOT_ALLOWED /
 * CSRF_ORIGIN, 404 NOT_FOUND, 409 NO_CHANGE.
 */
export const PATCH = withErrors(async (request: Request, { params }: Params) => {
  const admin = await requireActor(request, ['admin']);
  const body = await readJson(request, updateWebhookSchema);
  return Response.json(await updateWebhookEndpoint(admin, (await params).endpointId, body));
});

export const DELETE = withErrors(async (request: Request, { params }: Params) => {
  const admin = await requireActor(request, ['admin']);
  return Response.json(await deleteWebhookEndpoint(admin, (await params).endpointId));
});

export const { GET, POST, PUT, OPTIONS } = otherMethods('PATCH', 'DELETE');
