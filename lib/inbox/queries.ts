import 'server-only';
import { z } from 'zod';
import { dateBound, peopleMatching } from '@/lib/audit/queries';
import { afterPosition, decodeCursor, encodeCursor, type KeysetPosition } from '@/lib/http/keyset';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { pendingColumns, toPendingCall, type PendingRow } from '@/lib/store/prisma-store';
import { prisma } from '@/lib/store/db';

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
  /** ISO 8601 */
  createdAt: string;
  /** When it is declined or escalated unless decided (ISO 8601), and which; null without a deadline. */
  deadlineAt: string | null;
  deadlineAction: 'decline' | 'escalate' | null;
  /** Set once a deadline escalated it: when, and to whom (`admin`). */
  escalatedAt: string | null;
  assignedToRole: string | null;
}

export const inboxQuerySchema = z.object({
  status: z.enum(['pending', 'unknown']).default('pending'),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  /** Opaque keyset cursor from a previous page's `nextCursor`. */
  cursor: z.string().max(200).optional(),
  agentId: z.string().max(100).optional(),
  toolName: z.string().max(100).optional(),
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
export function inboxPageQuery(query: InboxQuery, after: KeysetPosition | null): Prisma.Sql {
  const filters: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (query.agentId) filters.push(Prisma.sql`p.agent_id = ${query.agentId}`);
  if (query.toolName) filters.push(Prisma.sql`p.tool_name = ${query.toolName}`);
  if (query.requester) filters.push(Prisma.sql`p.requested_by IN ${peopleMatching(query.requester)}`);
  if (query.from) filters.push(Prisma.sql`p.created_at >= ${query.from.toISOString()}::timestamptz`);
  if (query.to) filters.push(Prisma.sql`p.created_at < ${query.to.toISOString()}::timestamptz`);
  return Prisma.sql`
    SELECT ${pendingColumns('p')} FROM pending_tool_calls p
    WHERE p.status = ${query.status} AND p.kind IN ('approval', 'suspension')
      AND ${Prisma.join(filters, ' AND ')}
      AND ${afterPosition(after, 'p')}
    ORDER BY p.created_at DESC, p.id DESC
    LIMIT ${query.limit + 1}`;
}

/**
 * Calls waiting on a person (or, with `status: 'unknown'`, whose outcome is unknown), newest first,
 * keyset-paged (see inboxPageQuery). Source: behaviour §7, §11.
 *
 * @param db the client (default: the process's)
 * @returns a page of items and the cursor of the next page (null at the end)
 * @throws ApiError 400 INVALID_CURSOR
 */
export async function listInbox(query: InboxQuery, db: PrismaClient = prisma()): Promise<{ items: InboxItem[]; nextCursor: string | null }> {
  const rows = await db.$queryRaw<PendingRow[]>(inboxPageQuery(query, decodeCursor(query.cursor)));
  const page = rows.slice(0, query.limit);
  return {
    items: page.map(toInboxItem),
    nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!) : null,
  };
}

/** The inbox's view of a pending call row. */
function toInboxItem(row: PendingRow): InboxItem {
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
  const [row] = await db.$queryRaw<PendingRow[]>`
    SELECT ${pendingColumns('p')} FROM pending_tool_calls p
    WHERE p.id = ${id} AND p.status IN ('pending', 'unknown') AND p.kind IN ('approval', 'suspension')`;
  return row ? toInboxItem(row) : null;
}
