import { requireActor } from '@/lib/auth/session';
import { ApiError, invalidRequestMessage, withErrors } from '@/lib/http/errors';
import { deliveriesQuerySchema, listWebhookDeliveries } from '@/lib/webhooks/endpoints';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/admin/webhooks/deliveries?endpointId&status&cursor&limit → `{ deliveries, nextCursor }`:
 * the delivery log, newest first (status, attempts, last status code or error, response time).
 * Errors: 400 BAD_REQUEST, 400 INVALID_CURSOR, 401, 403 FORBIDDEN / API_KEY_NOT_ALLOWED.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  const parsed = deliveriesQuerySchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) throw new ApiError(400, 'BAD_REQUEST', invalidRequestMessage(parsed.error), parsed.error.issues);
  return Response.json(await listWebhookDeliveries(parsed.data));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
