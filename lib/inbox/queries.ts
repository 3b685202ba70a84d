import 'server-only';
import { z } from 'zod';
import { dateBound, peopleMatching } from '@/lib/audit/queries';
import { afterPosition, decodeCursor, encodeCursor, type KeysetPosition } from '@/lib/http/keyset';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { pendingColumns, toPendingCall, type PendingRow } from '@/lib/store/prisma-store';
import { prisma } from '@/lib/store/db';
import type { ToolDescription } from '@/lib/agent/tool';
import { appToolInputSchema, describeAppCall } from '@/lib/chat/describe';

/** One row of the approval inbox: a call waiting on a person. */
export interface InboxItem {
  id: string;
  /** `pending`: waiting on a person; `unknown`: its process died while it executed (never re-run). */
  status: 'pending' | 'unknown';
  runId: string;
  toolCallId: string;
  kind: 'approval' | 'suspension';
  toolName: string;
  args: unknown;
  fingerprint: string;
  approvers: 'requester' | 'reviewer';
  policy: string;
  /** Why it waits: the rule that paused it with its values, and who may decide (null on rows from before evaluations were stored). */
  why: string | null;
  /** Distinct reviewers whose approval is needed, when more than one. */
  quorum: number | null;
  /** Reviewers who approved a quorum call so far. */
  approvedBy: string[];
  /** Version of the policy rules that paused it (null: no data rule matched). */
  policyVersion: number | null;
  suspendPayload: unknown;
  /** JSON Schema (string) of the decision or the answer. */
  resumeSchema: string;
  threadId: string;
  /** Who started the run (the signed-in identity that asked; see runs.requested_by). */
  requester: string;
  agentId: string;
  chain: string[];
  /** The tool's own description of the call (null: the UI builds a generic line from the args). */
  description: ToolDescription | null;
  /** JSON Schema (string) of the tool's input, for the edit form; null: the form is inferred from the args. */
  inputSchema: string | null;
  /** The reviewer working on it (claimed or assigned), or null. */
  assignedTo: string | null;
  /** ISO 8601 */
  createdAt: string;
  /** When it is declined or escalated unless decided (ISO 8601), and which; null without a deadline. */
  deadlineAt: string | null;
  deadlineAction: 'decline' | 'escalate' | null;
  /** Set once a deadline escalated it: when, and to whom (`admin`). */
  escalatedAt: string | null;
  assignedToRole: string | null;
}

/**
 * The inbox's queues: `mine` — assigned to the viewer; `unassigned` — nobody works on it and the
 * viewer did not ask for it; `all` — every call; `requested` — calls the viewer asked for (kept
 * apart: a reviewer cannot decide their own reviewer-only calls, only withdraw them).
 */
export const INBOX_QUEUES = ['mine', 'unassigned', 'all', 'requested'] as const;
export type InboxQueue = (typeof INBOX_QUEUES)[number];

export const inboxQuerySchema = z.object({
  status: z.enum(['pending', 'unknown']).default('pending'),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  /** Opaque keyset cursor from a previous page's `nextCursor`. */
  cursor: z.string().max(200).optional(),
  agentId: z.string().max(100).optional(),
  toolName: z.string().max(100).optional(),
  /** Which queue (INBOX_QUEUES); unset: `all`. */
  queue: z.enum(INBOX_QUEUES).optional(),
  /** Who asked: part of their display name or email (case-insensitive). */
  requester: z
    .string()
    .max(200)
    .transform((value) => value.trim() || undefined)
    .optional(),
  /** Asked at or after (a day `YYYY-MM-DD` in UTC, or an ISO 8601 instant). */
  from: dateBound(false),
  /** Asked before the end of this day / at or before this instant (stored as the exclusive end). */
  to: dateBound(true),
});
export type InboxQuery = z.infer<typeof inboxQuerySchema>;

/**
 * The statement behind one inbox page: calls of `status` matching the filters (tool, agent,
 * requester by name or email, date range), newest first, keyset-paged on (created_at, id) by a row
 * comparison that the `(status, created_at DESC, id DESC)` index — or, with a tool filter,
 * `(status, tool_name, created_at DESC, id DESC)` — serves as an index condition at any depth (no OFFSET). One more row than `limit` tells whether a next page exists.
 */
export function inboxPageQuery(query: InboxQuery, after: KeysetPosition | null, viewerId: string | null = null): Prisma.Sql {
  const filters: Prisma.Sql[] = [queueCondition(query.queue ?? 'all', viewerId)];
  if (query.agentId) filters.push(Prisma.sql`p.agent_id = ${query.agentId}`);
  if (query.toolName) filters.push(Prisma.sql`p.tool_name = ${query.toolName}`);
  if (query.requester) filters.push(Prisma.sql`p.requested_by IN ${peopleMatching(query.requester)}`);
  if (query.from) filters.push(Prisma.sql`p.created_at >= ${query.from.toISOString()}::timestamptz`);
  if (query.to) filters.push(Prisma.sql`p.created_at < ${query.to.toISOString()}::timestamptz`);
  return Prisma.sql`
    SELECT ${pendingColumns('p')}, p.assigned_to AS "assignedTo" FROM pending_tool_calls p
    WHERE p.status = ${query.status} AND p.kind IN ('approval', 'suspension')
      AND ${Prisma.join(filters, ' AND ')}
      AND ${afterPosition(after, 'p')}
    ORDER BY p.created_at DESC, p.id DESC
    LIMIT ${query.limit + 1}`;
}

/** The SQL condition of one queue (see INBOX_QUEUES); without a viewer, every queue but `all` is empty. */
function queueCondition(queue: InboxQueue, viewerId: string | null): Prisma.Sql {
  if (queue === 'all') return Prisma.sql`TRUE`;
  if (viewerId === null) return Prisma.sql`FALSE`;
  if (queue === 'mine') return Prisma.sql`p.assigned_to = ${viewerId}`;
  if (queue === 'requested') return Prisma.sql`p.requested_by = ${viewerId}`;
  return Prisma.sql`p.assigned_to IS NULL AND p.requested_by <> ${viewerId}`;
}

/** Counts above this are shown as "999+": each queue's count stops there, so it stays cheap at any size. */
export const QUEUE_COUNT_CAP = 1_000;

/**
 * How many calls wait in each queue for the viewer (pending calls only), each counted up to
 * QUEUE_COUNT_CAP rows in one statement.
 * @returns counts by queue; a count equal to QUEUE_COUNT_CAP means "at least that many"
 */
export async function inboxQueueCounts(viewerId: string, db: PrismaClient = prisma()): Promise<Record<InboxQueue, number>> {
  const count = (queue: InboxQueue) => Prisma.sql`(SELECT count(*)::int FROM (
      SELECT 1 FROM pending_tool_calls p WHERE p.status = 'pending' AND p.kind IN ('approval', 'suspension') AND ${queueCondition(queue, viewerId)}
      LIMIT ${QUEUE_COUNT_CAP}) x)`;
  const [row] = await db.$queryRaw<Record<InboxQueue, number>[]>`
    SELECT ${count('mine')} AS mine, ${count('unassigned')} AS unassigned, ${count('all')} AS "all", ${count('requested')} AS requested`;
  return row;
}

/**
 * Calls waiting on a person (or, with `status: 'unknown'`, whose outcome is unknown), newest first,
 * keyset-paged (see inboxPageQuery), in one queue (INBOX_QUEUES) of the viewer. Source: behaviour §7, §11.
 *
 * @param db the client (default: the process's)
 * @param viewerId whose queues `mine`, `unassigned` and `requested` are (null: only `all` has rows)
 * @returns a page of items and the cursor of the next page (null at the end)
 * @throws ApiError 400 INVALID_CURSOR
 */
export async function listInbox(
  query: InboxQuery,
  db: PrismaClient = prisma(),
  viewerId: string | null = null,
): Promise<{ items: InboxItem[]; nextCursor: string | null }> {
  const rows = await db.$queryRaw<(PendingRow & { assignedTo: string | null })[]>(inboxPageQuery(query, decodeCursor(query.cursor), viewerId));
  const page = rows.slice(0, query.limit);
  return {
    items: page.map(toInboxItem),
    nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null,
  };
}

/** The inbox's view of a pending call row. */
function toInboxItem(row: PendingRow & { assignedTo: string | null }): InboxItem {
  const call = toPendingCall(row);
  return {
    id: call.id,
    status: call.status as InboxItem['status'],
    // A person addresses a call through the top-level run (a sub-agent's call under its delegation).
    runId: call.rootRunId,
    toolCallId: call.rootToolCallId,
    kind: call.kind as InboxItem['kind'],
    toolName: call.toolName,
    args: call.args,
    fingerprint: call.fingerprint,
    approvers: call.approvers,
    policy: call.policy,
    why: call.policyEvaluation?.why ?? null,
    quorum: call.quorum,
    approvedBy: call.approvedBy,
    policyVersion: call.policyVersion,
    suspendPayload: call.suspendPayload,
    resumeSchema: call.resumeSchema,
    threadId: call.threadId,
    requester: call.requestedBy,
    agentId: call.agentId,
    chain: call.chain,
    description: describeAppCall(call.toolName, call.args),
    assignedTo: row.assignedTo,
    inputSchema: call.kind === 'approval' ? appToolInputSchema(call.toolName) : null,
    createdAt: call.createdAt.toISOString(),
    deadlineAt: call.deadlineAt?.toISOString() ?? null,
    deadlineAction: call.deadlineAction ?? null,
    escalatedAt: call.escalatedAt?.toISOString() ?? null,
    assignedToRole: call.assignedToRole ?? null,
  };
}

/**
 * One call still waiting on a person (or of unknown outcome), by its pending-call id — for a deep
 * link (`/inbox?call=<id>`, as in reviewer emails) to a call that may not be on the first page.
 * @returns the item, or null when there is no such call or it is decided
 */
export async function getInboxItem(id: string, db: PrismaClient = prisma()): Promise<InboxItem | null> {
  const [row] = await db.$queryRaw<(PendingRow & { assignedTo: string | null })[]>`
    SELECT ${pendingColumns('p')}, p.assigned_to AS "assignedTo" FROM pending_tool_calls p
    WHERE p.id = ${id} AND p.status IN ('pending', 'unknown') AND p.kind IN ('approval', 'suspension')`;
  return row ? toInboxItem(row) : null;
}
