import 'server-only';
import { z } from 'zod';
import { containsPattern, dateBound, peopleMatching } from '@/lib/audit/queries';
import { ApiError } from '@/lib/http/errors';
import { queryText } from '@/lib/http/query';
import { afterPosition, decodeCursor, encodeCursor, type KeysetPosition } from '@/lib/http/keyset';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { pendingColumns, toPendingCall, type PendingRow } from '@/lib/store/rows';
import { withdrawnVotesOf, type WithdrawnReason } from '@/lib/store/quorum-votes';
import { env } from '@/lib/env';
import { prisma } from '@/lib/store/db';
import type { ToolDescription } from '@/lib/agent/tool';
import { appToolInputSchema, describeAppCall } from '@/lib/chat/describe';
import { INBOX_SORTS, type InboxSort } from './sorts';

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
  /** Votes on a quorum call that no longer count (the voter was deactivated or lost the role), oldest first. */
  withdrawnVotes: { userId: string; reason: WithdrawnReason }[];
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
  /**
   * From when it counts as overdue (ISO 8601; the inbox highlights it), null: never. A deadline
   * that escalates: that deadline (once escalated, when it was); a deadline that declines: never
   * (it is declined then); no deadline: created + INBOX_OVERDUE_AFTER (lib/notify/reviewer-jobs.ts
   * explains the choice).
   */
  overdueAt: string | null;
}

/**
 * The inbox's queues: `mine` ("For me") — assigned to the viewer, or unassigned and the viewer may
 * decide it (see queueCondition); `unassigned` — nobody works on it and the
 * viewer did not ask for it; `all` — every call; `requested` — calls the viewer asked for (kept
 * apart: a reviewer cannot decide their own reviewer-only calls, only withdraw them).
 */
export const INBOX_QUEUES = ['mine', 'unassigned', 'all', 'requested'] as const;
export type InboxQueue = (typeof INBOX_QUEUES)[number];

export { INBOX_SORTS, type InboxSort } from './sorts';

/**
 * The sort key of `deadline` order: the deadline, or — without one — this far-future instant, so
 * calls without a deadline come last and the key is never NULL (a row comparison and the
 * expression index `pending_tool_calls_status_deadline_key_id_idx` need a total order).
 */
export const NO_DEADLINE_KEY = '9999-12-31T00:00:00.000Z';

export const inboxQuerySchema = z.object({
  status: z.enum(['pending', 'unknown']).default('pending'),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  /** Opaque keyset cursor from a previous page's `nextCursor`. */
  cursor: queryText(200).optional(),
  agentId: queryText(100).optional(),
  toolName: queryText(100).optional(),
  /** Which queue (INBOX_QUEUES); unset: `all`. */
  queue: z.enum(INBOX_QUEUES).optional(),
  /**
   * Order (INBOX_SORTS): `newest` (default) or `oldest` by when the call started waiting, or
   * `deadline` — soonest deadline first, calls without one after them, oldest first.
   * A cursor is only meaningful with the sort it came from.
   */
  sort: z.enum(INBOX_SORTS).optional(),
  /** Who asked: part of their display name or email (case-insensitive). */
  requester: queryText(200)
    .transform((value) => value.trim() || undefined)
    .optional(),
  /** Asked at or after (a day `YYYY-MM-DD` in UTC, or an ISO 8601 instant). */
  from: dateBound(false),
  /** Asked before the end of this day / at or before this instant (stored as the exclusive end). */
  to: dateBound(true),
  /**
   * The search box: every word (at most SEARCH_WORDS, split on spaces) must appear in the call's
   * tool, agent or arguments, or in its requester's name or email (case-insensitive substrings; see searchCondition).
   */
  q: queryText(200)
    .transform((value) => value.trim() || undefined)
    .optional(),
});
export type InboxQuery = z.infer<typeof inboxQuerySchema>;

/** The filters of an inbox list (everything of InboxQuery that narrows it, not the queue, order or page). */
export type InboxFilters = Pick<InboxQuery, 'agentId' | 'toolName' | 'requester' | 'from' | 'to' | 'q'>;

/** Words of a search that count; more are ignored (each is one more condition). */
export const SEARCH_WORDS = 8;

/**
 * The search box's condition: each word (the first SEARCH_WORDS) is a case-insensitive substring of
 * `lower(tool_name || ' ' || agent_id || ' ' || args::text)` — exactly the expression of the trigram
 * index `pending_tool_calls_search_trgm_idx` — or of the requester's name or email (peopleMatching).
 * Bounded either way: the planner reads the trigram index where its statistics say the words are
 * rare, and otherwise walks the list's own order index and stops at the page's LIMIT (a word most
 * calls contain fills a page at once); the counts stop at QUEUE_COUNT_CAP.
 */
export function searchCondition(q: string): Prisma.Sql {
  const words = q.split(/\s+/).filter(Boolean).slice(0, SEARCH_WORDS);
  if (words.length === 0) return Prisma.sql`TRUE`;
  return Prisma.join(
    words.map(
      (word) =>
        // The people as an array computed once (an InitPlan), so both sides of the OR are index conditions (a BitmapOr).
        Prisma.sql`(lower(p.tool_name || ' ' || p.agent_id || ' ' || p.args::text) LIKE ${containsPattern(word.toLowerCase())} OR p.requested_by = ANY(ARRAY${peopleMatching(word)}))`,
    ),
    ' AND ',
  );
}

/** The SQL conditions of an inbox list's filters (tool, agent, requester, dates, search) over `pending_tool_calls p`. */
function filterConditions(query: InboxFilters): Prisma.Sql[] {
  const filters: Prisma.Sql[] = [];
  if (query.agentId) filters.push(Prisma.sql`p.agent_id = ${query.agentId}`);
  if (query.toolName) filters.push(Prisma.sql`p.tool_name = ${query.toolName}`);
  if (query.requester) filters.push(Prisma.sql`p.requested_by IN ${peopleMatching(query.requester)}`);
  if (query.from) filters.push(Prisma.sql`p.created_at >= ${query.from.toISOString()}::timestamptz`);
  if (query.to) filters.push(Prisma.sql`p.created_at < ${query.to.toISOString()}::timestamptz`);
  if (query.q) filters.push(searchCondition(query.q));
  return filters;
}

/**
 * The statement behind one inbox page: calls of `status` matching the filters (tool, agent,
 * requester by name or email, date range, search words: filterConditions) in the order of `query.sort`, keyset-paged by a row
 * comparison that an index serves as an index condition at any depth (no OFFSET):
 * - `newest`: (created_at DESC, id DESC) on `(status, created_at DESC, id DESC)` — or, with a tool
 *   filter, `(status, tool_name, created_at DESC, id DESC)`;
 * - `oldest`: (created_at ASC, id ASC), the same indexes read backwards;
 * - `deadline`: (coalesce(deadline_at, NO_DEADLINE_KEY), created_at, id) ascending on the expression
 *   index `(status, coalesce(deadline_at, …), created_at, id)`: soonest deadline first, then calls
 *   without one, oldest first. One more row than `limit` tells whether a
 * next page exists.
 */
export function inboxPageQuery(query: InboxQuery, after: InboxPosition | KeysetPosition | null, viewer: InboxViewer = null): Prisma.Sql {
  const filters: Prisma.Sql[] = [queueCondition(query.queue ?? 'all', viewer), ...filterConditions(query)];
  const order = sortSql(query.sort ?? 'newest', after && ('sortAt' in after ? after : { ...after, sortAt: after.createdAt }));
  return Prisma.sql`
    SELECT ${pendingColumns('p')}, p.assigned_to AS "assignedTo", ${order.key} AS "sortAt" FROM pending_tool_calls p
    WHERE p.status = ${query.status} AND p.kind IN ('approval', 'suspension')
      AND ${Prisma.join(filters, ' AND ')}
      AND ${order.after}
    ORDER BY ${order.orderBy}
    LIMIT ${query.limit + 1}`;
}

/** The sort key, the ORDER BY and the keyset condition of one order (see inboxPageQuery). */
function sortSql(sort: InboxSort, after: InboxPosition | null): { key: Prisma.Sql; orderBy: Prisma.Sql; after: Prisma.Sql } {
  if (sort === 'newest') return { key: Prisma.sql`p.created_at`, orderBy: Prisma.sql`p.created_at DESC, p.id DESC`, after: afterPosition(after, 'p') };
  if (sort === 'oldest') {
    const position = after ? Prisma.sql`(p.created_at, p.id) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::text)` : Prisma.sql`TRUE`;
    return { key: Prisma.sql`p.created_at`, orderBy: Prisma.sql`p.created_at ASC, p.id ASC`, after: position };
  }
  // Written exactly as in the index's expression, so the planner matches it.
  const key = Prisma.sql`coalesce(p.deadline_at, '9999-12-31 00:00:00+00'::timestamptz)`;
  const position = after
    ? Prisma.sql`(${key}, p.created_at, p.id) > (${after.sortAt.toISOString()}::timestamptz, ${after.createdAt.toISOString()}::timestamptz, ${after.id}::text)`
    : Prisma.sql`TRUE`;
  return { key, orderBy: Prisma.sql`${key} ASC, p.created_at ASC, p.id ASC`, after: position };
}

/** A position in any inbox order: the row's sort key (`sortAt`: created_at, or the deadline key), created_at and id. */
interface InboxPosition extends KeysetPosition {
  sortAt: Date;
}

/**
 * The opaque cursor of the row a page ended on. `newest`/`oldest`: encodeCursor of (created_at, id);
 * `deadline`: encodeCursor of (deadline key, `<created_at ISO>|<id>`), the second tie-break riding
 * in the id part.
 */
function inboxCursor(sort: InboxSort, row: { sortAt: Date; createdAt: Date; id: string }): string {
  if (sort !== 'deadline') return encodeCursor({ createdAt: row.createdAt, id: row.id });
  return encodeCursor({ createdAt: row.sortAt, id: `${row.createdAt.toISOString()}|${row.id}` });
}

/**
 * The position an inbox cursor names (see inboxCursor), or null without one.
 * @throws ApiError 400 INVALID_CURSOR for a cursor this API did not hand out
 */
function inboxPosition(sort: InboxSort, cursor: string | undefined): InboxPosition | null {
  const position = decodeCursor(cursor);
  if (!position) return null;
  if (sort !== 'deadline') return { ...position, sortAt: position.createdAt };
  const separator = position.id.indexOf('|');
  const createdAt = new Date(position.id.slice(0, Math.max(separator, 0)));
  const id = separator < 0 ? '' : position.id.slice(separator + 1);
  if (!id || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== position.id.slice(0, separator)) {
    throw new ApiError(400, 'INVALID_CURSOR', 'The cursor is not one this API returned.');
  }
  return { sortAt: position.createdAt, createdAt, id };
}

/** Whose queues a list shows: the signed-in reviewer or admin. A bare id is taken as a reviewer's. */
export type InboxViewer = { id: string; role: string } | string | null;

/**
 * The SQL condition of one queue (see INBOX_QUEUES); without a viewer, every queue but `all` is empty.
 * `mine` ("For me") is what the viewer should act on: calls assigned to them, and unassigned calls
 * they may decide — not asked for by them (their own are under `requested`), not escalated to a
 * role they lack (an escalated call is the admins'), and not a quorum call they already approved.
 */
export function queueCondition(queue: InboxQueue, viewer: InboxViewer): Prisma.Sql {
  if (queue === 'all') return Prisma.sql`TRUE`;
  if (viewer === null) return Prisma.sql`FALSE`;
  const { id: viewerId, role } = typeof viewer === 'string' ? { id: viewer, role: 'reviewer' } : viewer;
  if (queue === 'mine') {
    return Prisma.sql`(p.assigned_to = ${viewerId} OR (p.assigned_to IS NULL AND p.requested_by <> ${viewerId} AND p.resource_id <> ${viewerId}
      AND (p.assigned_to_role IS NULL OR p.assigned_to_role = ${role}) AND NOT (${viewerId}::text = ANY(p.approved_by))))`;
  }
  if (queue === 'requested') return Prisma.sql`p.requested_by = ${viewerId}`;
  return Prisma.sql`p.assigned_to IS NULL AND p.requested_by <> ${viewerId}`;
}

/** Counts above this are shown as "999+": each queue's count stops there, so it stays cheap at any size. */
export const QUEUE_COUNT_CAP = 1_000;

/** What the inbox counts: waiting calls in each queue, and of each kind in the queue shown. */
export type InboxCounts = Record<InboxQueue, number> & { kinds: Record<'approval' | 'suspension', number> };

/**
 * How many calls wait in each queue for the viewer (pending calls only) under the list's filters
 * (the same conditions as the list: filterConditions), and how many of each kind wait in `queue`
 * — so the header, the queue tabs and the kind buttons all count what the list would page through.
 * Each count stops at QUEUE_COUNT_CAP rows; one statement.
 * @param filters the list's filters (none: every waiting call)
 * @param queue the queue shown, whose calls the kind counts split (default `all`)
 * @returns counts by queue and, under `kinds`, by kind; a count equal to QUEUE_COUNT_CAP means "at least that many"
 */
export async function inboxQueueCounts(
  viewer: Exclude<InboxViewer, null>,
  filters: InboxFilters = {},
  queue: InboxQueue = 'all',
  db: PrismaClient = prisma(),
): Promise<InboxCounts> {
  const conditions = filterConditions(filters);
  const where = conditions.length > 0 ? Prisma.sql`AND ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
  const count = (inQueue: InboxQueue, kinds: Prisma.Sql = Prisma.sql`('approval', 'suspension')`) => Prisma.sql`(SELECT count(*)::int FROM (
      SELECT 1 FROM pending_tool_calls p WHERE p.status = 'pending' AND p.kind IN ${kinds} AND ${queueCondition(inQueue, viewer)} ${where}
      LIMIT ${QUEUE_COUNT_CAP}) x)`;
  const [row] = await db.$queryRaw<(Record<InboxQueue, number> & { approval: number; suspension: number })[]>`
    SELECT ${count('mine')} AS mine, ${count('unassigned')} AS unassigned, ${count('all')} AS "all", ${count('requested')} AS requested,
      ${count(queue, Prisma.sql`('approval')`)} AS approval, ${count(queue, Prisma.sql`('suspension')`)} AS suspension`;
  const { approval, suspension, ...queues } = row;
  return { ...queues, kinds: { approval, suspension } };
}

/**
 * Calls waiting on a person (or, with `status: 'unknown'`, whose outcome is unknown), in `query.sort` order (default newest first),
 * keyset-paged (see inboxPageQuery), in one queue (INBOX_QUEUES) of the viewer. Source: behaviour §7, §11.
 *
 * @param db the client (default: the process's)
 * @param viewer whose queues `mine`, `unassigned` and `requested` are (null: only `all` has rows)
 * @returns a page of items and the cursor of the next page (null at the end)
 * @throws ApiError 400 INVALID_CURSOR
 */
export async function listInbox(
  query: InboxQuery,
  db: PrismaClient = prisma(),
  viewer: InboxViewer = null,
): Promise<{ items: InboxItem[]; nextCursor: string | null }> {
  const sort = query.sort ?? 'newest';
  const rows = await db.$queryRaw<(PendingRow & { assignedTo: string | null; sortAt: Date })[]>(
    inboxPageQuery(query, inboxPosition(sort, query.cursor), viewer),
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const withdrawn = await withdrawnVotesOf(page.map(toPendingCall), db);
  return {
    items: page.map((row) => toInboxItem(row, withdrawn.get(row.id))),
    nextCursor: rows.length > query.limit && last ? inboxCursor(sort, { sortAt: last.sortAt, createdAt: new Date(last.createdAt), id: last.id }) : null,
  };
}

/** The inbox's view of a pending call row. */
function toInboxItem(row: PendingRow & { assignedTo: string | null }, withdrawnVotes: InboxItem['withdrawnVotes'] = []): InboxItem {
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
    withdrawnVotes,
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
    overdueAt: overdueAt(call),
  };
}

/** When a call becomes overdue (see InboxItem.overdueAt). */
function overdueAt(call: { createdAt: Date; deadlineAt?: Date | null; deadlineAction?: string | null; escalatedAt?: Date | null }): string | null {
  if (call.escalatedAt) return call.escalatedAt.toISOString();
  if (call.deadlineAt) return call.deadlineAction === 'escalate' ? call.deadlineAt.toISOString() : null;
  return new Date(call.createdAt.getTime() + env().INBOX_OVERDUE_AFTER).toISOString();
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
  if (!row) return null;
  const withdrawn = await withdrawnVotesOf([toPendingCall(row)], db);
  return toInboxItem(row, withdrawn.get(row.id));
}
