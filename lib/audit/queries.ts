import 'server-only';
import { stringify } from 'csv-stringify/sync';
import { isValid, parseISO } from 'date-fns';
import { z } from 'zod';
import { queryText } from '@/lib/http/query';
import { afterPosition, decodeCursor, encodeCursor, type KeysetPosition } from '@/lib/http/keyset';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { listCallActivity, type CallActivityEntry } from '@/lib/inbox/notes';
import type { ToolDescription } from '@/lib/agent/tool';
import { describeAppCall } from '@/lib/chat/describe';
import type { DecisionRow } from './chain';
import { CSV_BOM, CSV_CHAIN_COLUMNS, CSV_COLUMNS, csvCellText, csvEndCommentLine, decisionLine, exportEndLine, type StoredLink } from './export';
import { EXPORT_PAGE, exportHeaderLine, pagedExportStream } from './stream';

/** Free text a person types into a filter: trimmed, empty means "no filter". */
const filterText = queryText(200)
  .transform((value) => value.trim() || undefined)
  .optional();

/** The years a date filter may name: four-digit ISO 8601 years, all of which PostgreSQL stores. */
const YEARS = { min: 1, max: 9999 };

/**
 * A day (`2026-11-30`, a whole UTC day) or an instant (ISO 8601 with a zone) bounding a date range,
 * read by date-fns' `parseISO`, which refuses days a month does not have (`2026-02-31`). Years from
 * 0001 to 9999 only: PostgreSQL has no year 0, and JavaScript reads years it cannot store.
 * `end: true` turns it into the exclusive end: the day after a day, or the instant plus 1 ms, so
 * `to=2026-11-30` includes all of that day.
 */
export const dateBound = (end: boolean) =>
  z
    .string()
    .max(40)
    .transform((value, ctx) => {
      const text = value.trim();
      if (!text) return undefined;
      const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
      const date = parseISO(dayOnly ? `${text}T00:00:00Z` : text);
      const year = date.getUTCFullYear();
      if (!isValid(date) || (!dayOnly && !/[zZ]|[+-]\d{2}:?\d{2}$/.test(text)) || year < YEARS.min || year > YEARS.max) {
        ctx.addIssue({ code: 'custom', message: 'not a date (YYYY-MM-DD, years 0001 to 9999) or an ISO 8601 time with a zone' });
        return z.NEVER;
      }
      const bound = end ? new Date(date.getTime() + (dayOnly ? 86_400_000 : 1)) : date;
      // The end of 9999-12-31 is in year 10000, which PostgreSQL's parameters cannot carry: the
      // range then ends at the last millisecond of 9999 instead (nothing is stored later).
      return bound.getUTCFullYear() > YEARS.max ? new Date(Date.UTC(YEARS.max, 11, 31, 23, 59, 59, 999)) : bound;
    })
    .optional();

/**
 * Filters over decisions, shared by the audit log and the inbox's Done tab. People are found by
 * display name or email (a case-insensitive substring), never by internal id; `actorId` stays for
 * API clients that already know the id.
 */
export const decisionFiltersSchema = z.object({
  /** Who decided: part of their name or email. */
  person: filterText,
  /** Who asked (started the run): part of their name or email. */
  requester: filterText,
  actorId: queryText(100).optional(),
  toolName: filterText,
  agentId: filterText,
  /** The outcome: `approval` also lists the votes of quorum calls (shown as "Approved (1 of 2)"). */
  kind: z.enum(['approval', 'decline', 'resume', 'escalation']).optional(),
  /** Decided at or after (inclusive). */
  from: dateBound(false),
  /** Decided before the end of this day / at or before this instant. */
  to: dateBound(true),
});

/**
 * Whether a date range starts after it ends (`from` later than the end `to` names), so that it
 * could match nothing. The bounds as dateBound reads them: `to` is already the exclusive end, so
 * `from=2026-11-30&to=2026-11-30` (that whole day) is in order and `from=2026-12-01&to=2026-11-30` is not.
 */
export function rangeReversed(range: { from?: Date; to?: Date }): boolean {
  return range.from !== undefined && range.to !== undefined && range.from.getTime() >= range.to.getTime();
}

/**
 * The zod check of a query with `from` and `to` (dateBound) refusing a range that starts after it
 * ends: one issue on `from` whose message names both fields, which the API answers as 400
 * BAD_REQUEST ("The request is not valid: from: must not be after to (the range starts after it ends).").
 */
export function checkDateRange(range: { from?: Date; to?: Date }, ctx: z.RefinementCtx): void {
  if (rangeReversed(range)) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to (the range starts after it ends)' });
}

/**
 * The audit query's fields, each checked on its own (no check across fields): for pages that leave
 * out what they cannot read (parseLeavingOut) and then check the range themselves (rangeReversed).
 */
export const auditQueryFieldsSchema = decisionFiltersSchema.extend({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  /** Opaque keyset cursor from a previous page's `nextCursor`. */
  cursor: queryText(200).optional(),
  /** `csv` and `jsonl` (JSON Lines): the whole filtered log as a streamed download with the hash chain. */
  format: z.enum(['json', 'csv', 'jsonl']).default('json'),
});

/** `GET /api/audit`'s query: its fields, and a date range that does not start after it ends (checkDateRange). */
export const auditQuerySchema = auditQueryFieldsSchema.superRefine(checkDateRange);
export type DecisionFilters = z.infer<typeof decisionFiltersSchema>;
export type AuditQuery = z.infer<typeof auditQuerySchema>;

/** One decision as the audit shows it: who, when, what they saw, what they decided. */
export interface AuditEntry {
  id: string;
  /** ISO 8601 */
  at: string;
  actorId: string;
  /** The actor's display name (the users table's, read in the same statement); null for an unknown id (e.g. `system`). */
  actorName: string | null;
  /** The actor's email (display names are free text; emails are unique); null for an unknown id. */
  actorEmail: string | null;
  actorRole: string;
  /**
   * `vote`: a reviewer's approval of a quorum call short of its quorum (the call still waited);
   * `approval`: the approval that decided the call (for a quorum call, the one that filled it);
   * `escalation`: a deadline assigned the call to admins (actor `system`).
   */
  kind: 'approval' | 'vote' | 'decline' | 'resume' | 'escalation';
  approved: boolean | null;
  reason: string | null;
  toolName: string;
  /** The tool's own description of the call (null: the UI builds a generic line from the args). */
  description: ToolDescription | null;
  agentId: string;
  chain: string[];
  runId: string;
  /** The id people address the call by (qualified for a sub-agent's call), as in the inbox and the chat. */
  toolCallId: string;
  threadId: string;
  /** Who started the run (the signed-in identity, never a body field). */
  requester: string;
  /** The requester's display name; null for an unknown id. */
  requesterName: string | null;
  requesterEmail: string | null;
  fingerprint: string;
  args: unknown;
  editedArgs: unknown;
  editedFingerprint: string | null;
  resumeData: unknown;
  /** Why the call waited (the rule that paused it, with its values); null for questions and older rows. */
  why: string | null;
  /** The call's quorum (distinct reviewers it needed); null for a call without one. */
  quorum: number | null;
  /** Who approved the quorum call, in the order they did, as the call holds it now (a vote's place in it is its count); empty without a quorum. */
  approvedBy: string[];
  /** Assignments, notes and questions on the call before or after this decision, oldest first. */
  activity: CallActivityEntry[];
}

/** An audit entry with the decision as its hash chain link covers it (lib/audit/chain.ts), for the exports. */
export interface ChainedAuditEntry extends AuditEntry {
  chained: DecisionRow & StoredLink;
}

/** `%text%` for ILIKE, with the pattern characters in `text` matched literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Ids of the people whose name or email contains `text` (a subquery). */
export function peopleMatching(text: string): Prisma.Sql {
  const pattern = containsPattern(text);
  return Prisma.sql`(SELECT u.id FROM users u WHERE u.name ILIKE ${pattern} OR u.email ILIKE ${pattern})`;
}

/**
 * The WHERE condition of the decision filters over `decisions d JOIN pending_tool_calls p`. Times
 * go as ISO 8601 text with their offset (the same instant in any session time zone).
 */
export function decisionFilterSql(query: DecisionFilters): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (query.actorId) conditions.push(Prisma.sql`d.actor_id = ${query.actorId}`);
  if (query.person) conditions.push(Prisma.sql`d.actor_id IN ${peopleMatching(query.person)}`);
  if (query.requester) conditions.push(Prisma.sql`p.requested_by IN ${peopleMatching(query.requester)}`);
  // A vote is an approval short of its quorum: the audit and the Done tab label it "Approved (n of m)".
  if (query.kind === 'approval') conditions.push(Prisma.sql`d.kind IN ('approval', 'vote')`);
  else if (query.kind) conditions.push(Prisma.sql`d.kind = ${query.kind}`);
  if (query.from) conditions.push(Prisma.sql`d.created_at >= ${query.from.toISOString()}::timestamptz`);
  if (query.to) conditions.push(Prisma.sql`d.created_at < ${query.to.toISOString()}::timestamptz`);
  if (query.toolName) conditions.push(Prisma.sql`p.tool_name = ${query.toolName}`);
  if (query.agentId) conditions.push(Prisma.sql`p.agent_id = ${query.agentId}`);
  return Prisma.join(conditions, ' AND ');
}

/**
 * The statement behind one audit page: decisions matching the filters, newest first, keyset-paged on
 * (created_at, id) by a row comparison that the `(created_at DESC, id DESC)` index serves as an
 * index condition at any depth. One more row than `limit` tells whether a next page exists.
 * Times go as ISO 8601 text with their offset (the same instant in any session time zone).
 */
export function auditPageQuery(query: AuditQuery, after: KeysetPosition | null): Prisma.Sql {
  return Prisma.sql`
    SELECT d.id, d.created_at AS "createdAt", d.actor_id AS "actorId", d.actor_role AS "actorRole", d.kind, d.approved, d.reason,
      p.root_tool_call_id AS "toolCallId", d.fingerprint, d.args, d.edited_args AS "editedArgs", d.edited_fingerprint AS "editedFingerprint",
      d.resume_data AS "resumeData", p.tool_name AS "toolName", p.agent_id AS "agentId", p.chain, p.root_run_id AS "rootRunId",
      p.thread_id AS "threadId", p.requested_by AS "requester", d.pending_call_id AS "pendingCallId", actor.name AS "actorName", actor.email AS "actorEmail",
      requester.name AS "requesterName", requester.email AS "requesterEmail",
      p.policy_evaluation->>'why' AS "why", p.quorum, p.approved_by AS "approvedBy",
      d.run_id AS "decisionRunId", d.tool_call_id AS "decisionToolCallId", d.tool_name AS "decisionToolName",
      d.chain_seq AS "chainSeq", d.content_hash AS "contentHash", d.prev_hash AS "prevHash", d.hash
    FROM decisions d JOIN pending_tool_calls p ON p.id = d.pending_call_id
      LEFT JOIN users actor ON actor.id = d.actor_id
      LEFT JOIN users requester ON requester.id = p.requested_by
    WHERE ${decisionFilterSql(query)}
      AND ${afterPosition(after, 'd')}
    ORDER BY d.created_at DESC, d.id DESC
    LIMIT ${query.limit + 1}`;
}

type AuditRow = Omit<AuditEntry, 'at' | 'runId' | 'activity'> &
  StoredLink & { createdAt: Date; rootRunId: string; pendingCallId: string; decisionRunId: string; decisionToolCallId: string; decisionToolName: string | null };

/**
 * The append-only decision log, newest first, filtered; keyset-paged (see auditPageQuery).
 * @param db the client (default: the process's)
 * @returns a page of entries and the cursor of the next page (null at the end)
 * @throws ApiError 400 INVALID_CURSOR
 */
export async function listAudit(query: AuditQuery, db: PrismaClient = prisma()): Promise<{ entries: ChainedAuditEntry[]; nextCursor: string | null }> {
  const rows = await db.$queryRaw<AuditRow[]>(auditPageQuery(query, decodeCursor(query.cursor)));
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const activity = await listCallActivity([...new Set(page.map((row) => row.pendingCallId))], db);
  return {
    entries: page.map((row) => ({
      id: row.id,
      at: row.createdAt.toISOString(),
      actorId: row.actorId,
      actorName: row.actorName,
      actorEmail: row.actorEmail,
      actorRole: row.actorRole,
      kind: row.kind,
      approved: row.approved,
      reason: row.reason,
      toolName: row.toolName,
      description: describeAppCall(row.toolName, row.args),
      agentId: row.agentId,
      chain: row.chain,
      runId: row.rootRunId,
      toolCallId: row.toolCallId,
      threadId: row.threadId,
      requester: row.requester,
      requesterName: row.requesterName,
      requesterEmail: row.requesterEmail,
      fingerprint: row.fingerprint,
      args: row.args,
      editedArgs: row.editedArgs,
      editedFingerprint: row.editedFingerprint,
      resumeData: row.resumeData,
      why: row.why ?? null,
      quorum: row.quorum ?? null,
      approvedBy: row.approvedBy ?? [],
      activity: activity.get(row.pendingCallId) ?? [],
      chained: {
        id: row.id,
        pendingCallId: row.pendingCallId,
        runId: row.decisionRunId,
        toolCallId: row.decisionToolCallId,
        toolName: row.decisionToolName,
        kind: row.kind,
        approved: row.approved,
        reason: row.reason,
        actorId: row.actorId,
        actorRole: row.actorRole,
        fingerprint: row.fingerprint,
        args: row.args,
        editedArgs: row.editedArgs,
        editedFingerprint: row.editedFingerprint,
        resumeData: row.resumeData,
        createdAt: row.createdAt,
        chainSeq: row.chainSeq === null ? null : String(row.chainSeq),
        contentHash: row.contentHash,
        prevHash: row.prevHash,
        hash: row.hash,
      },
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}


/**
 * RFC 4180 CSV of audit entries (JSON columns as JSON text, CRLF line ends), each row with its hash
 * chain link (`chainSeq`, `contentHash`, `prevHash`, `hash`) and `chainEntry`, the decision as its
 * hash covers it, so `npm run audit:verify -- --file x.csv` checks it offline (lib/audit/export.ts).
 * A cell is quoted when
 * it holds a comma, quote or line break — or a semicolon or tab, which spreadsheets in some locales
 * split on, so no part of a cell can start a cell of its own — or a `#`, so a reader that skips `#`
 * comment lines (the end line) never cuts a cell. The text starts with the UTF-8 byte-order mark;
 * each person id column (`actorId`, `requester`) is followed by the person's name and email.
 * Cells are untrusted text (reasons, arguments, answers): any cell starting with `=`, `+`, `-`, `@`,
 * tab or CR (or their full-width forms) gets a leading `'`, so a spreadsheet shows it as text instead
 * of running it as a formula. Source: OWASP "CSV Injection".
 */
export function auditCsv(entries: ChainedAuditEntry[]): string {
  return `${CSV_BOM}${CSV_HEADER}${auditCsvRows(entries)}`;
}

/** The CSV header line (CRLF-terminated). */
export const CSV_HEADER = `${[...CSV_COLUMNS, ...CSV_CHAIN_COLUMNS].join(',')}\r\n`;

/** The CSV rows of `entries` without the header, quoted and escaped as auditCsv describes. */
export function auditCsvRows(entries: ChainedAuditEntry[]): string {
  return stringify(
    entries.map((entry) => {
      const { seq, contentHash, prevHash, hash, ...covered } = decisionLine(entry.chained);
      return [
        ...CSV_COLUMNS.map((column) => csvCellText(entry[column])),
        ...[entry.id, seq, contentHash, prevHash, hash].map(csvCellText),
        JSON.stringify(covered),
      ];
    }),
    // `#` is quoted too: readers told that `#` starts a comment (for the end line) never cut a cell there.
    { record_delimiter: 'windows', quoted_match: /[;\t\r\n#]/, escape_formulas: true },
  );
}

/**
 * The whole filtered audit log as JSON Lines, streamed like the CSV (one keyset page per pull, no
 * cap, newest first): a header line `{ entry: 'export', format, exportedAt, filters, head }` with
 * the chain head when the export started, then one line per decision with exactly the fields its
 * hash covers and its link, then the end line `{ entry: 'end', entries }` (lib/audit/export.ts),
 * which `npm run audit:verify -- --file` checks.
 *
 * @returns a byte stream for a Response body (`application/jsonl`)
 */
export function auditJsonLinesStream(query: AuditQuery, db: PrismaClient = prisma()): ReadableStream<Uint8Array> {
  return pagedExport(
    () => exportHeaderLine('decisions', query, db),
    (entries) => entries.map((entry) => `${JSON.stringify(decisionLine(entry.chained))}\n`).join(''),
    exportEndLine,
    query,
    db,
  );
}

/** Streams a header, then one keyset page of CSV_PAGE audit entries per pull, then the footer (see pagedExportStream). */
function pagedExport(
  header: () => Promise<string>,
  rows: (entries: ChainedAuditEntry[]) => string,
  footer: (entries: number) => string,
  query: AuditQuery,
  db: PrismaClient,
): ReadableStream<Uint8Array> {
  return pagedExportStream({ header, rows, footer, page: (cursor) => listAudit({ ...query, limit: CSV_PAGE, cursor }, db) });
}

/** Rows read per statement while streaming the CSV export. */
export const CSV_PAGE = EXPORT_PAGE;

/**
 * The whole filtered audit log as CSV (auditCsv's format), streamed: the header, then one keyset
 * page of CSV_PAGE decisions per pull, each read only when the client has taken the previous one
 * (backpressure), so memory stays flat however many rows match and there is no cap; then the end
 * comment line `# End of export: N decisions` (csvEndCommentLine in ./export.ts: a comment, not a
 * row, for readers that skip `#` lines), so a file cut short shows it. The file starts with a UTF-8
 * byte-order mark (CSV_BOM) so spreadsheet programs read it as UTF-8. `limit` and
 * `cursor` of the query are ignored: the export always starts at the newest matching decision.
 *
 * @returns a byte stream for a Response body
 */
export function auditCsvStream(query: AuditQuery, db: PrismaClient = prisma()): ReadableStream<Uint8Array> {
  return pagedExport(async () => `${CSV_BOM}${CSV_HEADER}`, auditCsvRows, csvEndCommentLine, query, db);
}
