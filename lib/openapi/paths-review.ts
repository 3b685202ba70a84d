import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { adminActionsQuerySchema } from '@/lib/audit/admin-actions';
import { auditQuerySchema } from '@/lib/audit/queries';
import { putPoliciesSchema } from '@/app/api/policies/schema';
import { assignmentSchema } from '@/lib/inbox/assignment';
import { noteSchema } from '@/lib/inbox/notes';
import { callOutcomeQuerySchema } from '@/lib/inbox/outcome';
import { inboxQuerySchema } from '@/lib/inbox/queries';
import { errors, json, sse, body, anyObject, pathParams, access } from './shapes';

/** The inbox, the approval policies and the audit. */
export const reviewPaths: ZodOpenApiPathsObject = {
  '/api/inbox': {
    get: {
      tags: ['Inbox'],
      summary: 'Calls waiting for a decision, newest first (keyset pages); `q` searches tool, agent, arguments and requester',
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
  '/api/inbox/outcome': {
    get: {
      tags: ['Inbox'],
      summary: 'What became of a call: its status, the latest decision and who made it, and the tool’s result',
      ...access('inbox:read', 'reviewers and admins'),
      requestParams: { query: callOutcomeQuerySchema },
      responses: { '200': json(anyObject('CallOutcome', '`{ status, assignedTo, decision, result, people }`'), 'The outcome'), ...errors(400, 401, 403, 404) },
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
      summary:
        'Replace the rule list (a new version; the rules already in force: no new version, changed false; 409 POLICY_CHANGED when someone saved after baseVersion, 422 UNKNOWN_POLICY_VERSION for a baseVersion not saved yet)',
      ...access(null, 'admins'),
      requestBody: body(putPoliciesSchema),
      responses: { '200': json(z.object({ version: z.number(), rules: z.array(z.unknown()), changed: z.boolean().meta({ description: 'false: the rules were already in force, nothing was recorded' }) }), 'Saved, or already in force'), ...errors(400, 401, 403, 409, 422) },
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
            'text/csv': {
              schema: z.string().meta({
                description:
                  'UTF-8 with a byte-order mark: a header row, one data row per decision (each person id with name and email beside it, then the hash chain link and chainEntry), then the comment line `# End of export: N decisions` (read with `#` as the comment character)',
              }),
            },
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
};
