import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { approveBodySchema, declineBodySchema, resumeBodySchema, sendToolApprovalBodySchema, streamBodySchema, suspendedRunsQuerySchema } from '@/app/api/agents/schema';
import { chatRequestSchema } from '@/app/api/chat/schema';
import { chatEventsQuerySchema } from '@/app/api/chat/[id]/events/schema';
import { decisionSchema } from '@/app/api/runs/[runId]/tool-calls/[toolCallId]/decision/schema';
import { resumeSchema } from '@/app/api/runs/[runId]/tool-calls/[toolCallId]/resume/schema';
import { renameThreadSchema } from '@/app/api/threads/[id]/schema';
import { errors, json, sse, body, anyObject, pathParams, threadParams, access } from './shapes';

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


/** Health, the description itself, sign-in, the chat, threads, runs and the agents routes. */
export const runPaths: ZodOpenApiPathsObject = {
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
        // 409 RUN_IN_PROGRESS: a turn of the thread is still running (one turn at a time).
        ...errors(400, 401, 403, 404, 409, 413, 422, 429),
      },
    },
  },
  '/api/chat/{id}': {
    get: {
      tags: ['Chat'],
      summary: 'A thread’s messages as useChat messages, and the names of the people its cards name',
      ...access('agents:run', 'the thread’s owner'),
      requestParams: threadParams,
      responses: {
        '200': json(
          z.object({
            messages: z.array(anyObject('UIMessage', 'AI SDK UI message')),
            people: z.record(z.string(), z.object({ name: z.string(), email: z.string().nullable() })),
          }),
          'The messages',
        ),
        ...errors(400, 401, 403, 404),
      },
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
  '/api/chat/{id}/stop': {
    post: {
      tags: ['Chat'],
      summary: 'Stop the thread’s running turn, on whichever server runs it (202; 200 with `stopping: false` when nothing runs)',
      ...access('agents:run', 'the thread’s owner'),
      requestParams: threadParams,
      responses: {
        '200': json(z.object({ stopping: z.literal(false), runId: z.null() }), 'No turn of the thread was running'),
        '202': json(z.object({ stopping: z.literal(true), runId: z.string() }), 'The running turn was told to stop'),
        ...errors(400, 401, 403, 404),
      },
    },
  },
  '/api/chat/{id}/events': {
    get: {
      tags: ['Chat'],
      summary: 'Live updates of a thread (SSE); with `since`, an event at once when the thread changed since that version',
      ...access('agents:run', 'the thread’s owner'),
      requestParams: { ...threadParams, query: chatEventsQuerySchema },
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
};
