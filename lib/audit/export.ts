import { z } from 'zod';
import type { DecisionRow, EventRow } from './chain';

/**
 * Audit exports that carry the hash chain (lib/audit/chain.ts): the format, and the lines the
 * exporters write. The offline verifier is ./export-verify.ts (readers) over ./export-check.ts.
 *
 * A JSON Lines export is a header line, then one line per entry. An entry line holds exactly what
 * its hash covers — the entry's canonical content fields (for a decision also the arguments, which
 * its fingerprint covers, and the edited arguments and answer, which its `dataHash` covers) — and
 * its link: `seq`, `contentHash`, `prevHash`, `hash`. Nothing else, so no byte of an entry line is
 * outside what the verifier checks. The CSV export has the readable columns plus the same link
 * columns and a `chainEntry` column with the entry as JSON; the verifier also compares every
 * readable column the hash covers with it, and names the ones it cannot check (agentId, requester,
 * why, and a sub-agent's top-level run and delegation path: CSV_COLUMN_CHECKS in ./export-verify.ts).
 *
 * Pure functions: no database, so `npm run audit:verify -- --file` runs anywhere.
 */

/**
 * The format name in the header line. Version 2 ends every export with an end line (JSON Lines) or
 * end row (CSV) that counts its entries, so a file that was cut off shows it.
 */
export const EXPORT_FORMAT = 'countersign-audit-export/2';
/** The first format: the same lines, without the end line. The verifier still reads it. */
export const EXPORT_FORMAT_V1 = 'countersign-audit-export/1';

const link = {
  /** The link's number in the chain (decimal text: it may exceed 2^53); null for entries older than the chain. */
  seq: z.string().regex(/^[1-9]\d*$/).nullable(),
  contentHash: z.string().nullable(),
  prevHash: z.string().nullable(),
  hash: z.string().nullable(),
};
const isoTime = z.iso.datetime({ offset: false, precision: 3 });

export const decisionLineSchema = z.strictObject({
  entry: z.literal('decision'),
  ...link,
  id: z.string(),
  pendingCallId: z.string(),
  runId: z.string(),
  toolCallId: z.string(),
  toolName: z.string().nullable(),
  kind: z.string(),
  approved: z.boolean().nullable(),
  reason: z.string().nullable(),
  actorId: z.string(),
  actorRole: z.string(),
  fingerprint: z.string(),
  args: z.unknown(),
  editedArgs: z.unknown(),
  editedFingerprint: z.string().nullable(),
  resumeData: z.unknown(),
  createdAt: isoTime,
});

export const eventLineSchema = z.strictObject({
  entry: z.literal('event'),
  ...link,
  id: z.string(),
  action: z.string(),
  actorId: z.string().nullable(),
  actorRole: z.string().nullable(),
  targetType: z.string().nullable(),
  targetId: z.string().nullable(),
  details: z.unknown(),
  createdAt: isoTime,
});

/**
 * The CSV export's readable columns, in order. `runId` and `toolCallId` are the run and call id people
 * address the call by (for a sub-agent's call the top-level run and the qualified id); `agentId`,
 * `requester` and `why` are covered by no hash. ./export-verify.ts says for each how it is checked.
 */
export const CSV_COLUMNS = [
  'at', 'actorId', 'actorName', 'actorEmail', 'actorRole', 'kind', 'approved', 'reason', 'toolName', 'agentId',
  'requester', 'requesterName', 'requesterEmail', 'runId', 'toolCallId', 'fingerprint', 'args', 'editedArgs', 'editedFingerprint', 'resumeData', 'why',
] as const;
/**
 * The readable columns of CSV exports written before the name and email columns (and before the
 * byte-order mark and the end comment line): the verifier still reads such files.
 */
export const CSV_COLUMNS_WITHOUT_NAMES = CSV_COLUMNS.filter((column) => !/^(actor|requester)(Name|Email)$/.test(column));
/** The hash chain columns after the readable ones: the link, and the entry as the hash covers it (JSON). */
export const CSV_CHAIN_COLUMNS = ['id', 'chainSeq', 'contentHash', 'prevHash', 'hash', 'chainEntry'] as const;

/** What an export holds: decisions (the audit log), administrative actions, or every link of the chain. */
export const EXPORT_SCOPES = ['decisions', 'actions', 'chain'] as const;
export type ExportScope = (typeof EXPORT_SCOPES)[number];

const headerFields = {
  entry: z.literal('export'),
  /** ISO 8601 */
  exportedAt: z.string(),
  /** The filters the export was made with (as given; empty: the whole log). */
  filters: z.record(z.string(), z.unknown()),
  /** The chain head when the export started. */
  head: z.object({ seq: z.string().regex(/^(0|[1-9]\d*)$/), hash: z.string().regex(/^[0-9a-f]{64}$/) }),
};

/** The first line of an export (format 2). Informational, not covered by a hash, except `head`, which the links must reach. */
export const headerLineSchema = z.strictObject({
  ...headerFields,
  format: z.literal(EXPORT_FORMAT),
  /** What the file holds; `chain` must be every link from 1 to the head, oldest first. */
  scope: z.enum(EXPORT_SCOPES),
  /**
   * Entries in the database older than the chain (no link) when the export started, as
   * `GET /api/audit/verify` reports them: a file may hold no more entries without a link.
   */
  unchained: z.number().int().nonnegative(),
});

/** The header of a format 1 file (no scope, no end line). */
const headerLineV1Schema = z.strictObject({ ...headerFields, format: z.literal(EXPORT_FORMAT_V1) });
/** A header line of either format (format 1 is still read). */
export const anyHeaderLineSchema = z.union([headerLineSchema, headerLineV1Schema]);

/**
 * The last line of an export (format 2): how many entry lines came before it. Written only after the
 * last page was read, so a download that broke off, or a file shortened later, has none or a wrong
 * count.
 */
export const endLineSchema = z.strictObject({
  entry: z.literal('end'),
  entries: z.number().int().nonnegative(),
});

/**
 * The UTF-8 byte-order mark the CSV export starts with, so spreadsheet programs (Excel in CJK and
 * French locales) read the file as UTF-8. Readers drop it (csv-parse's `bom: true`).
 */
export const CSV_BOM = '\uFEFF';

/**
 * The CSV export's last line: a comment, not a row — `# End of export: N decisions` (no quote and
 * no comma, so even a reader that does not skip comments reads it as one cell) — which CSV readers
 * skip when told that `#` starts a comment line (csv-parse's `comment: '#'` with
 * `comment_no_infix: true`, pandas' `comment='#'`); cells holding `#` are quoted, so no cell is read
 * as a comment. Written after the last row, so a file cut short has none; the verifier checks N.
 */
export const CSV_END_COMMENT = '#';

/** The CSV export's end comment line (CRLF-terminated) after `entries` rows. */
export function csvEndCommentLine(entries: number): string {
  return `${CSV_END_COMMENT} ${csvEndLabel(entries)}\r\n`;
}

/**
 * The words of the CSV's end comment line; also the first cell of the end row of CSV exports written
 * before the end comment line (which held the end line in `chainEntry`), still read by the verifier.
 */
export const csvEndLabel = (entries: number) => `End of export: ${entries} ${entries === 1 ? 'decision' : 'decisions'}`;

/** The end line (with its newline) of an export that wrote `entries` entry lines. */
export function exportEndLine(entries: number): string {
  return `${JSON.stringify({ entry: 'end', entries } satisfies EndLine)}\n`;
}

export type EndLine = z.infer<typeof endLineSchema>;
export type DecisionLine = z.infer<typeof decisionLineSchema>;
export type EventLine = z.infer<typeof eventLineSchema>;
export type HeaderLine = z.infer<typeof headerLineSchema>;
/** An entry line of either kind. */
export type EntryLine = DecisionLine | EventLine;

/** A stored link, as read from the database (all null before the chain existed). */
export interface StoredLink {
  chainSeq: bigint | string | null;
  contentHash: string | null;
  prevHash: string | null;
  hash: string | null;
}

const linkFields = (row: StoredLink) => ({
  seq: row.chainSeq === null ? null : String(row.chainSeq),
  contentHash: row.contentHash,
  prevHash: row.prevHash,
  hash: row.hash,
});

/** JSON values as stored in jsonb (undefined → null). */
const json = (value: unknown) => (value === undefined ? null : value);

/** The export line of a decision: its link and the fields its hash covers. */
export function decisionLine(row: DecisionRow & StoredLink): DecisionLine {
  return {
    entry: 'decision',
    ...linkFields(row),
    id: row.id,
    pendingCallId: row.pendingCallId,
    runId: row.runId,
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    kind: row.kind,
    approved: row.approved,
    reason: row.reason,
    actorId: row.actorId,
    actorRole: row.actorRole,
    fingerprint: row.fingerprint,
    args: json(row.args),
    editedArgs: json(row.editedArgs),
    editedFingerprint: row.editedFingerprint,
    resumeData: json(row.resumeData),
    createdAt: row.createdAt.toISOString(),
  };
}

/** The export line of an audit event: its link and the fields its hash covers. */
export function eventLine(row: EventRow & StoredLink): EventLine {
  return {
    entry: 'event',
    ...linkFields(row),
    id: row.id,
    action: row.action,
    actorId: row.actorId,
    actorRole: row.actorRole,
    targetType: row.targetType,
    targetId: row.targetId,
    details: json(row.details),
    createdAt: row.createdAt.toISOString(),
  };
}

/** The CSV text of a cell value, as the CSV export writes it (JSON values as JSON text). */
export function csvCellText(value: unknown): string {
  return value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
}
