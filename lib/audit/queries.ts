import 'server-only';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { afterPosition, decodeCursor, encodeCursor, type KeysetPosition } from '@/lib/http/keyset';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { listCallActivity, type CallActivityEntry } from '@/lib/inbox/notes';

export const auditQuerySchema = z.object({
  actorId: z.string().max(100).optional(),
  toolName: z.string().max(100).optional(),
  kind: z.enum(['approval', 'decline', 'resume', 'escalation']).optional(),
  from: z.coerce.date().optional(),
  to: z.coerce.date().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  /** Opaque keyset cursor from a previous page's `nextCursor`. */
  cursor: z.string().max(200).optional(),
  format: z.enum(['json', 'csv']).default('json'),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** One decision as the audit shows it: who, when, what they saw, what they decided. */
export interface AuditEntry {
  id: string;
  /** ISO 8601 */
  at: string;
  actorId: string;
  /** The actor's email (display names are free text; emails are unique); null for an unknown id. */
  actorEmail: string | null;
  actorRole: string;
  /** `escalation`: a deadline assigned the call to admins (actor `system`). */
  kind: 'approval' | 'decline' | 'resume' | 'escalation';
  approved: boolean | null;
  reason: string | null;
  toolName: string;
  agentId: string;
  chain: string[];
  runId: string;
  /** The id people address the call by (qualified for a sub-agent's call), as in the inbox and the chat. */
  toolCallId: string;
  threadId: string;
  /** Who started the run (the signed-in identity, never a body field). */
  requester: string;
  requesterEmail: string | null;
  fingerprint: string;
  args: unknown;
  editedArgs: unknown;
  editedFingerprint: string | null;
  resumeData: unknown;
  /** Why the call waited (the rule that paused it, with its values); null for questions and older rows. */
  why: string | null;
  /** Assignments, notes and questions on the call before or after this decision, oldest first. */
  activity: CallActivityEntry[];
}

/**
 * The statement behind one audit page: decisions matching the filters, newest first, keyset-paged on
 * (created_at, id) by a row comparison that the `(created_at DESC, id DESC)` index serves as an
 * index condition at any depth. One more row than `limit` tells whether a next page exists.
 * Times go as ISO 8601 text with their offset (the same instant in any session time zone).
 */
export function auditPageQuery(query: AuditQuery, after: KeysetPosition | null): Prisma.Sql {
  const from = query.from?.toISOString() ?? null;
  const to = query.to?.toISOString() ?? null;
  return Prisma.sql`
    SELECT d.id, d.created_at AS "createdAt", d.actor_id AS "actorId", d.actor_role AS "actorRole", d.kind, d.approved, d.reason,
      p.root_tool_call_id AS "toolCallId", d.fingerprint, d.args, d.edited_args AS "editedArgs", d.edited_fingerprint AS "editedFingerprint",
      d.resume_data AS "resumeData", p.tool_name AS "toolName", p.agent_id AS "agentId", p.chain, p.root_run_id AS "rootRunId",
      p.thread_id AS "threadId", p.requested_by AS "requester", d.pending_call_id AS "pendingCallId", actor.email AS "actorEmail", requester.email AS "requesterEmail",
      p.policy_evaluation->>'why' AS "why"
    FROM decisions d JOIN pending_tool_calls p ON p.id = d.pending_call_id
      LEFT JOIN users actor ON actor.id = d.actor_id
      LEFT JOIN users requester ON requester.id = p.requested_by
    WHERE (${query.actorId ?? null}::text IS NULL OR d.actor_id = ${query.actorId ?? null})
      AND (${query.kind ?? null}::text IS NULL OR d.kind = ${query.kind ?? null})
      AND (${from}::timestamptz IS NULL OR d.created_at >= ${from}::timestamptz)
      AND (${to}::timestamptz IS NULL OR d.created_at <= ${to}::timestamptz)
      AND (${query.toolName ?? null}::text IS NULL OR p.tool_name = ${query.toolName ?? null})
      AND ${afterPosition(after, 'd')}
    ORDER BY d.created_at DESC, d.id DESC
    LIMIT ${query.limit + 1}`;
}

type AuditRow = Omit<AuditEntry, 'at' | 'runId' | 'activity'> & { createdAt: Date; rootRunId: string; pendingCallId: string };

/**
 * The append-only decision log, newest first, filtered; keyset-paged (see auditPageQuery).
 * @param db the client (default: the process's)
 * @returns a page of entries and the cursor of the next page (null at the end)
 * @throws ApiError 400 INVALID_CURSOR
 */
export async function listAudit(query: AuditQuery, db: PrismaClient = prisma()): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
  const rows = await db.$queryRaw<AuditRow[]>(auditPageQuery(query, decodeCursor(query.cursor)));
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const activity = await listCallActivity([...new Set(page.map((row) => row.pendingCallId))], db);
  return {
    entries: page.map((row) => ({
      id: row.id,
      at: row.createdAt.toISOString(),
      actorId: row.actorId,
      actorEmail: row.actorEmail,
      actorRole: row.actorRole,
      kind: row.kind,
      approved: row.approved,
      reason: row.reason,
      toolName: row.toolName,
      agentId: row.agentId,
      chain: row.chain,
      runId: row.rootRunId,
      toolCallId: row.toolCallId,
      threadId: row.threadId,
      requester: row.requester,
      requesterEmail: row.requesterEmail,
      fingerprint: row.fingerprint,
      args: row.args,
      editedArgs: row.editedArgs,
      editedFingerprint: row.editedFingerprint,
      resumeData: row.resumeData,
      why: row.why ?? null,
      activity: activity.get(row.pendingCallId) ?? [],
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}

const CSV_COLUMNS = ['at', 'actorId', 'actorRole', 'kind', 'approved', 'reason', 'toolName', 'agentId', 'requester', 'runId', 'toolCallId', 'fingerprint', 'args', 'editedArgs', 'editedFingerprint', 'resumeData', 'why'] as const;

/**
 * RFC 4180 CSV of audit entries (JSON columns as JSON text, CRLF line ends): a cell is quoted when
 * it holds a comma, quote or line break — or a semicolon or tab, which spreadsheets in some locales
 * split on, so no part of a cell can start a cell of its own.
 * Cells are untrusted text (reasons, arguments, answers): any cell starting with `=`, `+`, `-`, `@`,
 * tab or CR (or their full-width forms) gets a leading `'`, so a spreadsheet shows it as text instead
 * of running it as a formula. Source: OWASP "CSV Injection".
 */
export function auditCsv(entries: AuditEntry[]): string {
  const text = (value: unknown) =>
    value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const rows = stringify(
    entries.map((entry) => CSV_COLUMNS.map((column) => text(entry[column]))),
    { record_delimiter: 'windows', quoted_match: /[;\t\r\n]/, escape_formulas: true },
  );
  return `${CSV_COLUMNS.join(',')}\r\n${rows}`;
}
