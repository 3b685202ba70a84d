import { withErrors } from '@/lib/http/errors';
import { openApiDocument } from '@/lib/openapi/document';
import { otherMethods } from '@/lib/http/methods';

let cached: string | null = null;

/** GET /api/openapi.json: the OpenAPI 3.1 description of every API route (public; no secrets in it). */
export const GET = withErrors(async () => {
  cached ??= JSON.stringify(openApiDocument());
  return new Response(cached, { headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
