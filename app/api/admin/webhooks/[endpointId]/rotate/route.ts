import { requireActor } from '@/lib/auth/session';
import { parseJson, readBodyText, withErrors } from '@/lib/http/errors';
import { rotateWebhookSchema, rotateWebhookSecret } from '@/lib/webhooks/endpoints';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ endpointId: string }> };

/**
 * POST /api/admin/webhooks/{endpointId}/rotate `{ graceSeconds? }` (body optional; default 24 h) →
 * `{ endpoint, secret }`: the new secret, shown this once; the old one signs too until the grace ends.
 * Errors: 400 BAD_REQUEST, 401, 403 FORBIDDEN / API_KEY_NOT_ALLOWED / CSRF_ORIGIN, 404 NOT_FOUND.
 */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const admin = await requireActor(request, ['admin']);
  const text = await readBodyText(request);
  const body = parseJson(text.trim() === '' ? '{}' : text, rotateWebhookSchema);
  return Response.json(await rotateWebhookSecret(admin, (await params).endpointId, body));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
