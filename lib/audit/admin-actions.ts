import 'server-only';
import { z } from 'zod';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { afterPosition, decodeCursor, encodeCursor } from '@/lib/http/keyset';
import { queryText } from '@/lib/http/query';
import { prisma } from '@/lib/store/db';
import type { EventRow } from './chain';
import { AUDIT_ACTIONS, type AuditAction } from './events';
import { eventLine, exportEndLine, type StoredLink } from './export';
import { EXPORT_PAGE, exportHeaderLine, pagedExportStream } from './stream';
import { checkDateRange, dateBound, peopleMatching } from './queries';

/**
 * Filters over administrative actions (`audit_events`): who did it (part of their name or email),
 * what (an action, or a group such as `policy`, `user`, `api_key`, `auth`, `settings`, `webhook`), dates.
 * Each field checked on its own: the page leaves out what it cannot read, then checks the range
 * (rangeReversed); the API uses adminActionsQuerySchema.
 */
export const adminActionsQueryFieldsSchema = z.object({
  /** Who did it: part of their name or email. */
  actor: queryText(200)
    .transform((value) => value.trim() || undefined)
    .optional(),
  /** An action (`policy.changed`) or the group before its dot (`policy`); empty: all. */
  action: z
    .union([z.enum(AUDIT_ACTIONS), z.enum(['api_key', 'user', 'settings', 'policy', 'auth', 'webhook']), z.literal('')])
    .transform((value) => value || undefined)
    .optional(),
  from: dateBound(false),
  to: dateBound(true),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: queryText(200).optional(),
  /** `jsonl`: every matching action as JSON Lines with the hash chain (no cap; `limit`/`cursor` ignored). */
  format: z.enum(['json', 'jsonl']).default('json'),
});

/** `GET /api/audit/actions`'s query: its fields, and a date range that does not start after it ends (checkDateRange). */
export const adminActionsQuerySchema = adminActionsQueryFieldsSchema.superRefine(checkDateRange);
export type AdminActionsQuery = z.infer<typeof adminActionsQuerySchema>;

/** One administrative action as the audit shows it. */
export interface AdminAction {
  id: string;
  /** ISO 8601 */
  at: string;
  action: AuditAction;
  /** null: the system. */
  actorId: string | null;
  actorRole: string | null;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
}

type Row = Omit<AdminAction, 'at'> & StoredLink & { createdAt: Date };

function filterSql(query: AdminActionsQuery): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (query.actor) conditions.push(Prisma.sql`e.actor_id IN ${peopleMatching(query.actor)}`);
  if (query.action?.includes('.')) conditions.push(Prisma.sql`e.action = ${query.action}`);
  else if (query.action) conditions.push(Prisma.sql`e.action LIKE ${`${query.action}.%`}`);
  if (query.from) conditions.push(Prisma.sql`e.created_at >= ${query.from.toISOString()}::timestamptz`);
  if (query.to) conditions.push(Prisma.sql`e.created_at < ${query.to.toISOString()}::timestamptz`);
  return Prisma.join(conditions, ' AND ');
}

/**
 * Administrative actions (policy edits, user and role changes, API keys, sign-up settings,
 * sign-ins), newest first, filtered, keyset-paged on (created_at, id) like the decision log.
 * @returns a page, each action with its hash chain link (`chained`) for the export
 * @throws ApiError 400 INVALID_CURSOR
 */
export async function listAdminActions(
  query: AdminActionsQuery,
  db: PrismaClient = prisma(),
): Promise<{ entries: (AdminAction & { chained: EventRow & StoredLink })[]; nextCursor: string | null }> {
  const rows = await db.$queryRaw<Row[]>`
    SELECT e.id, e.action, e.actor_id AS "actorId", e.actor_role AS "actorRole", e.target_type AS "targetType", e.target_id AS "targetId",
      e.details, e.created_at AS "createdAt", e.chain_seq AS "chainSeq", e.content_hash AS "contentHash", e.prev_hash AS "prevHash", e.hash
    FROM audit_events e
    WHERE ${filterSql(query)} AND ${afterPosition(decodeCursor(query.cursor), 'e')}
    ORDER BY e.created_at DESC, e.id DESC
    LIMIT ${query.limit + 1}`;
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map((row) => ({
      id: row.id,
      at: row.createdAt.toISOString(),
      action: row.action,
      actorId: row.actorId,
      actorRole: row.actorRole,
      targetType: row.targetType,
      targetId: row.targetId,
      details: row.details,
      chained: { ...row, chainSeq: row.chainSeq === null ? null : String(row.chainSeq) },
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}

/**
 * Every matching administrative action as JSON Lines with the hash chain, streamed (newest first,
 * one page of 500 per pull, no cap): the export header, then one `event` line per action, then
 * the end line with their count (lib/audit/export.ts), which `npm run audit:verify -- --file` checks offline.
 */
export function adminActionsJsonLinesStream(query: AdminActionsQuery, db: PrismaClient = prisma()): ReadableStream<Uint8Array> {
  return pagedExportStream({
    header: () => exportHeaderLine('actions', query, db),
    page: (cursor) => listAdminActions({ ...query, limit: EXPORT_PAGE, cursor }, db),
    rows: (entries) => entries.map((entry) => `${JSON.stringify(eventLine(entry.chained))}\n`).join(''),
    footer: exportEndLine,
  });
}
