import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { createUserSchema, updateUserSchema } from '@/lib/admin/users';
import { createKeySchema } from '@/lib/auth/api-keys';
import { SCOPES } from '@/lib/auth/scopes';
import { signUpPolicySchema } from '@/lib/security/sign-up';
import { createWebhookSchema, deliveriesQuerySchema, rotateWebhookSchema, updateWebhookSchema, WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/endpoints';
import { errors, json, body, pathParams, access } from './shapes';

const apiKeySummary = z
  .object({
    id: z.string(),
    name: z.string(),
    start: z.string().nullable(),
    scopes: z.array(z.enum(SCOPES)),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    rateLimitPerMinute: z.number().nullable(),
    status: z.enum(['active', 'revoked', 'expired']),
  })
  .meta({ id: 'ApiKey' });

const managedUser = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    role: z.enum(['user', 'reviewer', 'admin']),
    active: z.boolean(),
    createdAt: z.string(),
    activeKeys: z.number().int(),
    passwordTemporary: z.boolean().meta({ description: 'The password is one an admin chose, not yet changed by its owner' }),
    lockedUntil: z.string().nullable().meta({ description: 'Until when sign-in is locked after wrong passwords; a password reset lifts it' }),
  })
  .meta({ id: 'User' });

const signUpPolicy = signUpPolicySchema.extend({ source: z.enum(['database', 'environment']) }).meta({ id: 'SignUpPolicy' });

const webhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
    previousSecretExpiresAt: z.string().nullable().meta({ description: 'Until when the secret before the last rotation still signs (a second signature)' }),
    deliveries: z.object({ pending: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
  })
  .meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint; its secret is never listed' });

const webhookSecret = z.string().meta({ description: 'The endpoint secret (`whsec_…`), shown in this answer only' });

const webhookDelivery = z
  .object({
    id: z.string(),
    eventId: z.string().meta({ description: 'The `webhook-id` header of every attempt' }),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    endpointId: z.string(),
    endpointUrl: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    lastDurationMs: z.number().int().nullable().meta({ description: 'Response time of the last attempt, ms' }),
    lastAttemptAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    subject: z.object({ toolName: z.string().nullable(), runId: z.string().nullable(), callId: z.string().nullable(), status: z.string().nullable() }),
  })
  .meta({ id: 'WebhookDelivery' });


/** API keys, users, webhooks and the sign-up setting. */
export const adminPaths: ZodOpenApiPathsObject = {
  '/api/me': {
    get: {
      tags: ['API keys'],
      summary: 'Who this request acts as: your user id (the agents API’s resourceId), name, email, role, and the key’s scopes',
      security: [{ session: [] }, { bearer: [] }, { apiKey: [] }],
      description: 'Who: any signed-in person. Any valid API key may call it, whatever its scopes.',
      responses: {
        '200': json(
          z.object({
            id: z.string().meta({ description: 'Your user id: the `resourceId` of the agents API (it defaults to this id)' }),
            name: z.string(),
            email: z.string(),
            role: z.enum(['user', 'reviewer', 'admin']),
            apiKey: z.object({ id: z.string(), scopes: z.array(z.enum(SCOPES)) }).nullable().meta({ description: 'The key the request was made with; null for a session' }),
          }),
          'You',
        ),
        ...errors(401, 429),
      },
    },
  },
  '/api/keys': {
    get: {
      tags: ['API keys'],
      summary: 'Your API keys (never their secrets)',
      ...access(null),
      responses: { '200': json(z.object({ keys: z.array(apiKeySummary) }), 'Your keys'), ...errors(401, 403) },
    },
    post: {
      tags: ['API keys'],
      summary: 'Create an API key (your current password asked again; at most 10 active keys, 20 tries an hour); the secret is in this answer only',
      ...access(null, 'any signed-in person; scopes limited by your role'),
      requestBody: body(createKeySchema),
      responses: { '201': json(z.object({ key: apiKeySummary, secret: z.string() }), 'Created'), ...errors(400, 401, 403, 409, 429) },
    },
  },
  '/api/keys/{keyId}': {
    delete: {
      tags: ['API keys'],
      summary: 'Revoke one of your keys at once',
      ...access(null),
      requestParams: pathParams('keyId'),
      responses: { '200': json(z.object({ key: apiKeySummary }), 'Revoked'), ...errors(401, 403, 404, 409) },
    },
  },
  '/api/admin/users': {
    get: {
      tags: ['Administration'],
      summary: 'Every account and the sign-up policy',
      ...access(null, 'admins'),
      responses: { '200': json(z.object({ users: z.array(managedUser), signUp: signUpPolicy }), 'Accounts'), ...errors(401, 403) },
    },
    post: {
      tags: ['Administration'],
      summary: 'Create an account with a temporary password (in this answer only)',
      ...access(null, 'admins'),
      requestBody: body(createUserSchema),
      responses: { '201': json(z.object({ user: managedUser, temporaryPassword: z.string() }), 'Created'), ...errors(400, 401, 403, 409) },
    },
  },
  '/api/admin/users/{userId}': {
    patch: {
      tags: ['Administration'],
      summary: 'Change a role, or deactivate (sessions and keys revoked) / reactivate an account',
      ...access(null, 'admins'),
      requestParams: pathParams('userId'),
      requestBody: body(updateUserSchema),
      responses: { '200': json(z.object({ user: managedUser }), 'Changed'), ...errors(400, 401, 403, 404, 409) },
    },
  },
  '/api/admin/users/{userId}/password': {
    post: {
      tags: ['Administration'],
      summary: 'Reset a password (new temporary password in this answer only; signed out everywhere, API keys revoked)',
      ...access(null, 'admins'),
      requestParams: pathParams('userId'),
      responses: { '200': json(z.object({ temporaryPassword: z.string() }), 'Reset'), ...errors(401, 403, 404) },
    },
  },
  '/api/admin/users/{userId}/keys': {
    get: {
      tags: ['Administration'],
      summary: 'One person’s API keys (never their secrets), newest first',
      ...access(null, 'admins'),
      requestParams: pathParams('userId'),
      responses: { '200': json(z.object({ keys: z.array(apiKeySummary) }), 'Their keys'), ...errors(401, 403, 404) },
    },
  },
  '/api/admin/users/{userId}/keys/{keyId}': {
    delete: {
      tags: ['Administration'],
      summary: 'Revoke one of that person’s API keys at once',
      ...access(null, 'admins'),
      requestParams: pathParams('userId', 'keyId'),
      responses: { '200': json(z.object({ key: apiKeySummary }), 'Revoked'), ...errors(401, 403, 404, 409) },
    },
  },
  '/api/admin/webhooks': {
    get: {
      tags: ['Webhooks'],
      summary: 'Every webhook endpoint (no secrets)',
      ...access(null, 'admins'),
      responses: { '200': json(z.object({ endpoints: z.array(webhookEndpoint) }), 'Endpoints'), ...errors(401, 403) },
    },
    post: {
      tags: ['Webhooks'],
      summary: 'Register an endpoint for call.pending, call.decided, call.expired, run.finished (its secret in this answer only)',
      ...access(null, 'admins'),
      requestBody: body(createWebhookSchema),
      responses: {
        '201': json(z.object({ endpoint: webhookEndpoint, secret: webhookSecret }), 'Registered'),
        ...errors(400, 401, 403),
      },
    },
  },
  '/api/admin/webhooks/{endpointId}': {
    patch: {
      tags: ['Webhooks'],
      summary: 'Change an endpoint’s URL, description, events or enabled flag',
      ...access(null, 'admins'),
      requestParams: pathParams('endpointId'),
      requestBody: body(updateWebhookSchema),
      responses: { '200': json(z.object({ endpoint: webhookEndpoint }), 'Changed'), ...errors(400, 401, 403, 404, 409) },
    },
    delete: {
      tags: ['Webhooks'],
      summary: 'Delete an endpoint and its delivery log',
      ...access(null, 'admins'),
      requestParams: pathParams('endpointId'),
      responses: { '200': json(z.object({ id: z.string() }), 'Deleted'), ...errors(401, 403, 404) },
    },
  },
  '/api/admin/webhooks/{endpointId}/rotate': {
    post: {
      tags: ['Webhooks'],
      summary: 'New secret (in this answer only); the old one signs too for graceSeconds',
      ...access(null, 'admins'),
      requestParams: pathParams('endpointId'),
      requestBody: { required: false, content: { 'application/json': { schema: rotateWebhookSchema } } },
      responses: { '200': json(z.object({ endpoint: webhookEndpoint, secret: webhookSecret }), 'Rotated'), ...errors(400, 401, 403, 404) },
    },
  },
  '/api/admin/webhooks/deliveries': {
    get: {
      tags: ['Webhooks'],
      summary: 'The delivery log, newest first (keyset pages)',
      ...access(null, 'admins'),
      requestParams: { query: deliveriesQuerySchema },
      responses: {
        '200': json(z.object({ deliveries: z.array(webhookDelivery), nextCursor: z.string().nullable() }), 'Deliveries'),
        ...errors(400, 401, 403),
      },
    },
  },
  '/api/admin/webhooks/deliveries/{deliveryId}/resend': {
    post: {
      tags: ['Webhooks'],
      summary: 'Send a delivery again now (same webhook-id and body, fresh signature)',
      ...access(null, 'admins'),
      requestParams: pathParams('deliveryId'),
      responses: { '202': json(z.object({ delivery: webhookDelivery }), 'Queued'), ...errors(401, 403, 404, 409) },
    },
  },
  '/api/admin/settings/sign-up': {
    get: { tags: ['Administration'], summary: 'The self sign-up policy in force', ...access(null, 'admins'), responses: { '200': json(signUpPolicy, 'The policy'), ...errors(401, 403) } },
    put: {
      tags: ['Administration'],
      summary: 'Set the self sign-up policy (overrides SIGN_UP_ENABLED / SIGN_UP_EMAIL_DOMAINS)',
      ...access(null, 'admins'),
      requestBody: body(signUpPolicySchema),
      responses: { '200': json(signUpPolicy, 'The policy now in force'), ...errors(400, 401, 403) },
    },
  },
};
