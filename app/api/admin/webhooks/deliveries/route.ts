import { requireActor } from '@/lib/auth/session';
import { parseValue, withErrors } from '@/lib/http/errors';
import { deliveriesQuerySchema, listWebhookDeliveries } from '@/lib/webhooks/endpoints';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/admin/webhooks/deliveries?endpointId&status&cursor&limit → `{ deliveries, nextCursor }`:
 * the delivery log, newest first (status, attempts, last status code or error, response time).
 * Errors: 400 BAD_REQUEST, 400 INVALID_CURSOR, 401, 403 FORBIDDEN / API_KEY_NOT_ALLOWED.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  return Response.json(await listWebhookDeliveries(parseValue(Object.fromEntries(new URL(request.url).searchParams), deliveriesQuerySchema)));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
