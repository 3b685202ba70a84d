import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { resendWebhookDelivery } from '@/lib/webhooks/endpoints';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ deliveryId: string }> };

/**
 * POST /api/admin/webhooks/deliveries/{deliveryId}/resend → 202 `{ delivery }`: sent again now by
 * the job queue, same `webhook-id` and body, with the full number of retries again.
 * Errors: 401, 403 FORBIDDEN / API_KEY_NOT_ALLOWED / CSRF_ORIGIN, 404 NOT_FOUND, 409 ENDPOINT_DISABLED.
 */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const admin = await requireActor(request, ['admin']);
  return Response.json({ delivery: await resendWebhookDelivery(admin, (await params).deliveryId) }, { status: 202 });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
