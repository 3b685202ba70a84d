import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import {
  approveBodySchema,
  declineBodySchema,
  resumeBodySchema,
  sendToolApprovalBodySchema,
  streamBodySchema,
  suspendedRunsQuerySchema,
} from '@/app/api/agents/schema';
import { chatRequestSchema } from '@/app/api/chat/schema';
import { decisionSchema } from '@/app/api/runs/[runId]/tool-calls/[toolCallId]/decision/schema';
import { resumeSchema } from '@/app/api/runs/[runId]/tool-calls/[toolCallId]/resume/schema';
import { renameThreadSchema } from '@/app/api/threads/[id]/schema';
import { threadParamsSchema } from '@/lib/chat/thread-id';
import { createUserSchema, updateUserSchema } from '@/lib/admin/users';
import { createKeySchema } from '@/lib/auth/api-keys';
import { SCOPES } from '@/lib/auth/scopes';
import { adminActionsQuerySchema } from '@/lib/audit/admin-actions';
import { auditQuerySchema } from '@/lib/audit/queries';
import { putPoliciesSchema } from '@/app/api/policies/schema';
import { assignmentSchema } from '@/lib/inbox/assignment';
import { noteSchema } from '@/lib/inbox/notes';
import { inboxQuerySchema } from '@/lib/inbox/queries';
import { signUpPolicySchema } from '@/lib/security/sign-up';
import { createWebhookSchema, deliveriesQuerySchema, rotateWebhookSchema, updateWebhookSchema, WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/endpoints';

/**
 * The OpenAPI 3.1 description of every route under app/api, built from the same zod schemas the
 * route handlers validate with (zod-openapi). Served at GET /api/openapi.json and shown at /docs/api.
 * Responses that are streams (SSE, the AI SDK UI message stream) are described by media type.
 */

// ---- shared shapes ----

const errorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable code, e.g. ALREADY_DECIDED, INSUFFICIENT_SCOPE' }),
      message: z.string().meta({ description: 'A sentence safe to show to a person' }),
      details: z.unknown().optional(),
    }),
  })
  .meta({ id: 'Error', description: 'Every error answer: `{ error: { code, message, details? } }`' });

const ERROR_TEXT: Record<number, string> = {
  400: 'The request is not valid (BAD_REQUEST, INVALID_JSON, JSON_TOO_DEEP, INVALID_BODY)',
  401: 'Not signed in (UNAUTHENTICATED), or the API key is invalid, revoked, expired or its owner deactivated (API_KEY_INVALID, API_KEY_REVOKED, API_KEY_EXPIRED, ACCOUNT_DEACTIVATED)',
  403: 'Not allowed: another role (FORBIDDEN), the key lacks the scope (INSUFFICIENT_SCOPE) or may not use this route (API_KEY_NOT_ALLOWED), or a cross-site request (CSRF_ORIGIN)',
  404: 'Not found, or not yours (NOT_FOUND, NO_SNAPSHOT_FOUND, UNKNOWN_AGENT)',
  409: 'Conflicts with the current state (e.g. ALREADY_DECIDED, AMBIGUOUS_TOOL_CALL, LAST_ADMIN)',
  413: 'The body is too large (BODY_TOO_LARGE, MESSAGE_TOO_LONG)',
  422: 'Well-formed but refused (e.g. INVALID_RESUME_DATA, INVALID_ARGS)',
  429: 'Too many requests (RATE_LIMITED, TOO_MANY_STREAMS); see Retry-After',
  500: 'Something failed on the server (INTERNAL, RUN_FAILED)',
  502: 'The model provider failed (MODEL_PROVIDER_CONFIG, MODEL_PROVIDER_DOWN, MODEL_PROVIDER_REJECTED)',
  503: 'The model provider is busy (MODEL_PROVIDER_BUSY)',
};

function errors(...statuses: number[]): Record<string, { description: string; content: { 'application/json': { schema: typeof errorBody } } }> {
  return Object.fromEntries(statuses.map((status) => [String(status), { description: ERROR_TEXT[status], content: { 'application/json': { schema: errorBody } } }]));
}

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
const sse = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: z.string().meta({ description: 'Server-Sent Events: `data: <json chunk>` lines' }) } },
});
const body = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema } } });
const anyObject = (id: string, description: string) => z.looseObject({}).meta({ id, description });

const pathParams = <K extends string>(...names: K[]) => ({ path: z.object(Object.fromEntries(names.map((name) => [name, z.string()])) as Record<K, z.ZodString>) });
/** The `{id}` of a route addressing one thread: THREAD_ID (pattern, minLength, maxLength), as in every body and query. */
const threadParams = { path: threadParamsSchema };

/** Who may call: a session, and/or an API key with a scope. */
function access(scope: (typeof SCOPES)[number] | null, roles = 'any signed-in person'): Pick<ZodOpenApiOperationObject, 'security' | 'description'> {
  return {
    security: scope ? [{ session: [] }, { bearer: [] }, { apiKey: [] }] : [{ session: [] }],
    description: `Who: ${roles}. ${scope ? `API keys need the scope \`${scope}\`.` : 'A signed-in session only (no API key).'}`,
  };
}

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

const agentId = pathParams('agentId');
const agentPost = (summary: string, schema: z.ZodType, scope: 'agents:run' | 'decisions:write', streams: boolean): ZodOpenApiOperationObject => ({
  tags: ['Agents'],
  summary,
  ...access(scope, 'any signed-in person; `resourceId` must be your own id and the thread yours (approve/decline/resume: the run’s owner or a reviewer)'),
  requestParams: agentId,
  requestBody: body(schema),
  responses: {
    '200': streams ? sse('The run’s chunks, in the seed framework’s shapes') : json(anyObject(`${summary.replace(/\W+/g, '')}Result`, 'The result'), 'The result'),
    ...errors(400, 401, 403, 404, 409, 413, 422, 429, ...(streams ? [] : [500, 502, 503])),
  },
});

/** Every route, by OpenAPI path (app/api/x/[y]/route.ts → /api/x/{y}). */
export const paths: ZodOpenApiPathsObject = {
  '/api/health': {
    get: { tags: ['Service'], summary: 'Liveness and database reachability', security: [], responses: { '200': json(z.object({ ok: z.literal(true) }), 'Up'), ...errors(500) } },
  },
  '/api/openapi.json': {
    get: { tags: ['Service'], summary: 'This document', security: [], responses: { '200': json(anyObject('OpenApiDocument', 'OpenAPI 3.1'), 'The document') } },
  },
  '/api/auth/sign-in/email': {
    post: {
      tags: ['Auth'],
      summary: 'Sign in (better-auth); sets the session cookie',
      security: [],
      requestBody: body(z.object({ email: z.string(), password: z.string(), rememberMe: z.boolean().optional() })),
      responses: { '200': json(anyObject('SignInResult', 'The session’s user'), 'Signed in'), ...errors(400, 401, 403, 429) },
    },
  },
  '/api/auth/sign-up/email': {
    post: {
      tags: ['Auth'],
      summary: 'Create your own account, when self sign-up is on (403 SIGN_UP_DISABLED / EMAIL_DOMAIN_NOT_ALLOWED otherwise)',
      security: [],
      requestBody: body(z.object({ email: z.string(), password: z.string().min(8).max(128), name: z.string() })),
      responses: { '200': json(anyObject('SignUpResult', 'The new user'), 'Created and signed in'), ...errors(400, 403, 422, 429) },
    },
  },
  '/api/auth/sign-out': {
    post: { tags: ['Auth'], summary: 'Sign out', security: [{ session: [] }], responses: { '200': json(z.object({ success: z.boolean() }), 'Signed out'), ...errors(401) } },
  },
  '/api/auth/get-session': {
    get: { tags: ['Auth'], summary: 'The current session, or null', security: [{ session: [] }], responses: { '200': json(anyObject('Session', 'Session and user, or null'), 'The session') } },
  },
  '/api/auth/change-password': {
    post: {
      tags: ['Auth'],
      summary: 'Change your password (signs out your other sessions unless revokeOtherSessions is false)',
      security: [{ session: [] }],
      requestBody: body(z.object({ currentPassword: z.string(), newPassword: z.string(), revokeOtherSessions: z.boolean().optional() })),
      responses: { '200': json(anyObject('ChangePasswordResult', 'Done'), 'Changed'), ...errors(400, 401, 429) },
    },
  },
  '/api/chat': {
    post: {
      tags: ['Chat'],
      summary: 'Send a message, or continue a run with a `decision` / `resume` (AI SDK UI message stream, for useChat)',
      ...access('agents:run', 'any signed-in person (a decision or answer also needs `decisions:write` with a key)'),
      requestBody: body(chatRequestSchema),
      responses: {
        '200': { description: 'AI SDK UI message stream', content: { 'text/event-stream': { schema: z.string() } } },
        ...errors(400, 401, 403, 404, 409, 413, 422, 429),
      },
    },
  },
  '/api/chat/{id}': {
    get: {
      tags: ['Chat'],
      summary: 'A thread’s messages as useChat messages',
      ...access('agents:run', 'the thread’s owner'),
      requestParams: threadParams,
      responses: { '200': json(z.object({ messages: z.array(anyObject('UIMessage', 'AI SDK UI message')) }), 'The messages'), ...errors(400, 401, 403, 404) },
    },
  },
  '/api/chat/{id}/stream': {
    get: {
      tags: ['Chat'],
      summary: 'Resume the thread’s running stream (204 when nothing runs)',
      ...access('agents:run', 'the thread’s owner'),
      requestParams: threadParams,
      responses: { '200': sse('The rest of the running stream'), '204': { description: 'Nothing is running' }, ...errors(400, 401, 403, 404, 429) },
    },
  },
  '/api/chat/{id}/events': {
    get: {
      tags: ['Chat'],
      summary: 'Live updates of a thread (SSE)',
      ...access('agents:run', 'the thread’s owner'),
      requestParams: threadParams,
      responses: { '200': sse('Thread events'), ...errors(400, 401, 403, 404, 429) },
    },
  },
  '/api/threads/{id}': {
    patch: {
      tags: ['Chat'],
      summary: 'Rename one of your threads',
      ...access('agents:run', 'the thread’s owner'),
      requestParams: threadParams,
      requestBody: body(renameThreadSchema),
      responses: { '200': json(z.object({ thread: z.object({ id: z.string(), title: z.string() }) }), 'Renamed'), ...errors(400, 401, 403, 404) },
    },
    delete: {
      tags: ['Chat'],
      summary: 'Delete one of your threads (refused while a call waits or the agent works)',
      ...access('agents:run', 'the thread’s owner'),
      requestParams: threadParams,
      responses: { '200': json(z.object({ deleted: z.literal(true), id: z.string() }), 'Deleted'), ...errors(400, 401, 403, 404, 409) },
    },
  },
  '/api/runs/{runId}/tool-calls/{toolCallId}/decision': {
    post: {
      tags: ['Runs'],
      summary: 'Approve (optionally with edited args) or decline a waiting call; streams the continuation',
      ...access('decisions:write', 'the run’s owner or a reviewer (four-eyes for reviewer-only calls)'),
      requestParams: pathParams('runId', 'toolCallId'),
      requestBody: body(decisionSchema),
      responses: { '200': sse('The continuation'), ...errors(400, 401, 403, 404, 409, 413, 422, 429) },
    },
  },
  '/api/runs/{runId}/tool-calls/{toolCallId}/resume': {
    post: {
      tags: ['Runs'],
      summary: 'Answer a suspended tool; streams the continuation',
      ...access('decisions:write', 'the run’s owner or a reviewer'),
      requestParams: pathParams('runId', 'toolCallId'),
      requestBody: body(resumeSchema),
      responses: { '200': sse('The continuation'), ...errors(400, 401, 403, 404, 409, 413, 422, 429) },
    },
  },
  '/api/agents/{agentId}/stream': { post: agentPost('Start a run and stream it', streamBodySchema, 'agents:run', true) },
  '/api/agents/{agentId}/generate': { post: agentPost('Start a run and wait for its result (finishReason "suspended" when a call waits)', streamBodySchema, 'agents:run', false) },
  '/api/agents/{agentId}/approve-tool-call': { post: agentPost('Approve a waiting call; streams the continuation', approveBodySchema, 'decisions:write', true) },
  '/api/agents/{agentId}/decline-tool-call': { post: agentPost('Decline a waiting call; streams the continuation', declineBodySchema, 'decisions:write', true) },
  '/api/agents/{agentId}/approve-tool-call-generate': { post: agentPost('Approve a waiting call; the continuation’s result', approveBodySchema, 'decisions:write', false) },
  '/api/agents/{agentId}/decline-tool-call-generate': { post: agentPost('Decline a waiting call; the continuation’s result', declineBodySchema, 'decisions:write', false) },
  '/api/agents/{agentId}/resume-stream': { post: agentPost('Answer a suspended tool; streams the continuation', resumeBodySchema, 'decisions:write', true) },
  '/api/agents/{agentId}/send-tool-approval': {
    post: {
      ...agentPost('Approve or decline the waiting call of a thread', sendToolApprovalBodySchema, 'decisions:write', false),
      responses: {
        '200': json(z.object({ accepted: z.boolean(), runId: z.string(), toolCallId: z.string() }), 'Accepted; the run continues in the background'),
        ...errors(400, 401, 403, 404, 409, 422, 429),
      },
    },
  },
  '/api/agents/{agentId}/suspended-runs': {
    get: {
      tags: ['Agents'],
      summary: 'Runs waiting for an approval or an answer (end users: only their own)',
      ...access('agents:run'),
      requestParams: { ...agentId, query: suspendedRunsQuerySchema },
      responses: { '200': json(z.object({ runs: z.array(anyObject('SuspendedRun', 'A waiting run and its calls')), total: z.number().int() }), 'The runs'), ...errors(400, 401, 403, 404, 429) },
    },
  },
  '/api/inbox': {
    get: {
      tags: ['Inbox'],
      summary: 'Calls waiting for a decision, newest first (keyset pages)',
      ...access('inbox:read', 'reviewers and admins'),
      requestParams: { query: inboxQuerySchema },
      responses: { '200': json(anyObject('InboxPage', '`{ items, nextCursor }`'), 'A page'), ...errors(400, 401, 403) },
    },
  },
  '/api/inbox/count': {
    get: {
      tags: ['Inbox'],
      summary: 'How many calls wait for you, and the newest (badge, tab title, notifications)',
      ...access('inbox:read', 'reviewers and admins'),
      responses: { '200': json(anyObject('InboxCount', 'The count and the newest waiting call'), 'The count'), ...errors(401, 403) },
    },
  },
  '/api/inbox/calls/{id}/context': {
    get: {
      tags: ['Inbox'],
      summary: 'What the requester asked, the agent’s text before the call, and the facts its tool gives',
      ...access('inbox:read', 'reviewers and admins'),
      requestParams: pathParams('id'),
      responses: { '200': json(anyObject('CallContext', 'The thread’s last messages before the call and the tool’s facts'), 'The context'), ...errors(401, 403, 404) },
    },
  },
  '/api/inbox/calls/{id}/assignment': {
    post: {
      tags: ['Inbox'],
      summary: 'Claim, release or assign a waiting call (409 ASSIGNMENT_CHANGED when someone else changed it first)',
      ...access('decisions:write', 'reviewers and admins'),
      requestParams: pathParams('id'),
      requestBody: body(assignmentSchema),
      responses: { '200': json(anyObject('Assignment', 'The call’s assignee after the change'), 'Assigned'), ...errors(400, 401, 403, 404, 409, 422) },
    },
  },
  '/api/inbox/calls/{id}/notes': {
    post: {
      tags: ['Inbox'],
      summary: 'A note on a waiting call, or a question sent into the requester’s chat, without deciding',
      ...access('decisions:write', 'reviewers and admins'),
      requestParams: pathParams('id'),
      requestBody: body(noteSchema),
      responses: { '201': json(anyObject('CallNote', 'The note as stored'), 'Added'), ...errors(400, 401, 403, 404, 409) },
    },
  },
  '/api/policies': {
    get: {
      tags: ['Administration'],
      summary: 'The approval policy rules in force and their latest versions',
      ...access(null, 'admins'),
      responses: { '200': json(anyObject('PolicySet', '`{ version, rules, changedBy, changedAt, changes }`'), 'The rules'), ...errors(401, 403) },
    },
    put: {
      tags: ['Administration'],
      summary: 'Replace the rule list (a new version; 409 POLICY_CHANGED when someone saved after baseVersion)',
      ...access(null, 'admins'),
      requestBody: body(putPoliciesSchema),
      responses: { '200': json(z.object({ version: z.number(), rules: z.array(z.unknown()) }), 'Saved'), ...errors(400, 401, 403, 409) },
    },
  },
  '/api/inbox/events': {
    get: { tags: ['Inbox'], summary: 'Live inbox updates (SSE)', ...access('inbox:read', 'reviewers and admins'), responses: { '200': sse('Inbox events'), ...errors(401, 403, 429) } },
  },
  '/api/audit': {
    get: {
      tags: ['Audit'],
      summary: 'The decision log (JSON pages; format=csv or format=jsonl: the whole filtered log with the hash chain)',
      ...access('audit:read', 'admins'),
      requestParams: { query: auditQuerySchema },
      responses: {
        '200': {
          description: 'A page of entries',
          content: {
            'application/json': { schema: anyObject('AuditPage', '`{ entries, nextCursor }`') },
            'text/csv': { schema: z.string() },
            'application/jsonl': { schema: z.string().meta({ description: 'A header line, then one line per decision with its hash chain link, then the end line with their count' }) },
          },
        },
        ...errors(400, 401, 403),
      },
    },
  },
  '/api/audit/actions': {
    get: {
      tags: ['Audit'],
      summary: 'Administrative actions: policy edits, users and roles, API keys, sign-up settings, sign-ins (format=jsonl: all, with the hash chain)',
      ...access('audit:read', 'admins'),
      requestParams: { query: adminActionsQuerySchema },
      responses: {
        '200': {
          description: 'A page of actions',
          content: {
            'application/json': { schema: anyObject('AdminActionsPage', '`{ entries: [{ id, at, action, actorId, actorRole, targetType, targetId, details }], nextCursor }`') },
            'application/jsonl': { schema: z.string().meta({ description: 'A header line, then one line per action with its hash chain link, then the end line with their count' }) },
          },
        },
        ...errors(400, 401, 403),
      },
    },
  },
  '/api/audit/chain': {
    get: {
      tags: ['Audit'],
      summary: 'The whole audit hash chain as JSON Lines: every link, decisions and admin actions, oldest first up to the head',
      ...access('audit:read', 'admins'),
      responses: {
        '200': {
          description: 'The chain, checked offline by npm run audit:verify -- --file',
          content: {
            'application/jsonl': { schema: z.string().meta({ description: 'A header line with the chain head, one line per link from link 1, then the end line with their count' }) },
          },
        },
        ...errors(400, 401, 403),
      },
    },
  },
  '/api/audit/verify': {
    get: {
      tags: ['Audit'],
      summary: 'Recompute the audit hash chain and name the first broken link',
      ...access('audit:read', 'admins'),
      responses: {
        '200': json(
          z.object({
            ok: z.boolean(),
            checked: z.number().int(),
            unchained: z.number().int(),
            head: z.object({ seq: z.string(), hash: z.string() }),
            firstBroken: z
              .object({ table: z.string(), id: z.string(), seq: z.string(), problem: z.string(), message: z.string() })
              .nullable(),
          }),
          'The report (ok false: firstBroken names the entry)',
        ),
        ...errors(401, 403),
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
      summary: 'Create an API key; the secret is in this answer only',
      ...access(null, 'any signed-in person; scopes limited by your role'),
      requestBody: body(createKeySchema),
      responses: { '201': json(z.object({ key: apiKeySummary, secret: z.string() }), 'Created'), ...errors(400, 401, 403) },
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
      summary: 'Reset a password (new temporary password in this answer only; signed out everywhere)',
      ...access(null, 'admins'),
      requestParams: pathParams('userId'),
      responses: { '200': json(z.object({ temporaryPassword: z.string() }), 'Reset'), ...errors(401, 403, 404) },
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

/** Paths served by a catch-all route file, documented individually above. */
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
