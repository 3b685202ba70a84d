import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import { adminPaths } from './paths-admin';
import { reviewPaths } from './paths-review';
import { runPaths } from './paths-runs';

/**
 * The OpenAPI 3.1 description of every route under app/api, built from the same zod schemas the
 * route handlers validate with (zod-openapi). Served at GET /api/openapi.json and shown at /docs/api.
 * Responses that are streams (SSE, the AI SDK UI message stream) are described by media type.
 */

/** Every route, by OpenAPI path (app/api/x/[y]/route.ts → /api/x/{y}). */
export const paths: ZodOpenApiPathsObject = { ...runPaths, ...reviewPaths, ...adminPaths };

/** Paths served by a catch-all route file, documented individually in ./paths-runs.ts. */
export const CATCH_ALL_PREFIXES = ['/api/auth/'];

/** The OpenAPI 3.1 document (a plain JSON object). */
export function openApiDocument() {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Countersign API',
      version: '1.0.0',
      description:
        'Human approval for AI agent actions. Authenticate with the session cookie of a signed-in person, or an API key ' +
        '(`Authorization: Bearer <key>` or `x-api-key`) made at /settings/keys: a key acts as its owner, within its scopes. ' +
        'State-changing browser requests must come from the app’s own origin. Errors are `{ error: { code, message, details? } }`.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'better-auth.session_token', description: 'The session cookie set by sign-in' },
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key as a bearer token' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key in the x-api-key header' },
      },
    },
    paths,
  });
}
