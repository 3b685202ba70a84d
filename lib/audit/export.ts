import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { fingerprintToolCall } from '@/lib/agent/fingerprint';
import { contentHash, decisionContent, eventContent, GENESIS, linkHash, type DecisionRow, type EventRow } from './chain';

/**
 * Audit exports that carry the hash chain (lib/audit/chain.ts), and their offline verifier.
 *
 * A JSON Lines export is a header line, then one line per entry. An entry line holds exactly what
 * its hash covers — the entry's canonical content fields (for a decision also the arguments, which
 * its fingerprint covers, and the edited arguments and answer, which its `dataHash` covers) — and
 * its link: `seq`, `contentHash`, `prevHash`, `hash`. Nothing else, so no byte of an entry line is
 * outside what the verifier checks. The CSV export has the readable columns plus the same link
 * columns and a `chainEntry` column with the entry as JSON; the verifier also compares the readable
 * columns that the hash covers with it.
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

/** The CSV export's readable columns, in order. */
export const CSV_COLUMNS = ['at', 'actorId', 'actorRole', 'kind', 'approved', 'reason', 'toolName', 'agentId', 'requester', 'runId', 'toolCallId', 'fingerprint', 'args', 'editedArgs', 'editedFingerprint', 'resumeData', 'why'] as const;
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
const anyHeaderLineSchema = z.union([headerLineSchema, headerLineV1Schema]);

/**
 * The last line of an export (format 2): how many entry lines came before it. Written only after the
 * last page was read, so a download that broke off, or a file shortened later, has none or a wrong
 * count.
 */
export const endLineSchema = z.strictObject({
  entry: z.literal('end'),
  entries: z.number().int().nonnegative(),
});

/** The CSV export's end row shows this in its first column; its `chainEntry` holds the end line. */
export const csvEndLabel = (entries: number) => `End of export: ${entries} ${entries === 1 ? 'decision' : 'decisions'}`;

/** The end line (with its newline) of an export that wrote `entries` entry lines. */
export function exportEndLine(entries: number): string {
  return `${JSON.stringify({ entry: 'end', entries } satisfies EndLine)}\n`;
}

export type EndLine = z.infer<typeof endLineSchema>;
export type DecisionLine = z.infer<typeof decisionLineSchema>;
export type EventLine = z.infer<typeof eventLineSchema>;
export type HeaderLine = z.infer<typeof headerLineSchema>;
type EntryLine = DecisionLine | EventLine;

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

/** What an offline check found wrong, naming the entry (and where it is in the file). */
export interface ExportProblem {
  /** 1-based line of a JSON Lines file, or 1-based record (after the header) of a CSV file. */
  line: number;
  id: string | null;
  seq: string | null;
  problem:
    | 'unreadable'
    | 'truncated'
    | 'content_changed'
    | 'args_changed'
    | 'wrong_hash'
    | 'wrong_previous_hash'
    | 'wrong_link_number'
    | 'duplicate_link'
    | 'missing_link'
    | 'out_of_order'
    | 'head_mismatch'
    | 'column_changed';
  message: string;
}

/** The result of checking an export offline. */
export interface ExportReport {
  ok: boolean;
  /** Entry lines (or rows) read. */
  entries: number;
  /** Entries older than the chain (no link: only readable, nothing to check). */
  unchained: number;
  /** Runs of consecutive link numbers in the file: within a run every link follows the one before. */
  runs: { fromSeq: string; toSeq: string }[];
  /** The file holds link 1 and it follows the genesis hash. */
  startsAtGenesis: boolean;
  /** The header's chain head, when the file had a header. */
  head: { seq: string; hash: string } | null;
  /** What the header says the file holds (null: no header, or format 1). */
  scope: ExportScope | null;
  /** The header's filters (null: no header). Not covered by a hash: what the exporter says it asked for. */
  filters: Record<string, unknown> | null;
  /** The file holds the link the head names, with the head's hash: the last run ends at the head. */
  reachesHead: boolean;
  /**
   * The file ends with its end line (or end row) and holds as many entries as it counts: nothing was
   * cut off its end. False for a file without one (an export of format 1, or loose entry lines).
   */
  complete: boolean;
  problems: ExportProblem[];
}

interface Checked {
  line: number;
  id: string;
  seq: bigint;
  prevHash: string;
  hash: string;
}

/** Checks one entry on its own: content hash, argument fingerprints, link hash. */
function checkEntry(entry: EntryLine, line: number): ExportProblem | null {
  const where = { line, id: entry.id, seq: entry.seq };
  if (entry.contentHash === null || entry.prevHash === null || entry.hash === null) {
    return { ...where, problem: 'unreadable', message: `Entry ${entry.id} has a link number but no hashes.` };
  }
  const createdAt = new Date(entry.createdAt);
  const content = entry.entry === 'decision' ? decisionContent({ ...entry, createdAt }) : eventContent({ ...entry, createdAt });
  if (contentHash(content) !== entry.contentHash) {
    return { ...where, problem: 'content_changed', message: `The ${entry.entry} ${entry.id} does not match its content hash: a field was changed.` };
  }
  if (entry.entry === 'decision') {
    const argsOk =
      entry.toolName !== null &&
      fingerprintToolCall({ toolName: entry.toolName, args: entry.args }) === entry.fingerprint &&
      (entry.editedArgs === null || fingerprintToolCall({ toolName: entry.toolName, args: entry.editedArgs }) === entry.editedFingerprint);
    if (!argsOk) return { ...where, problem: 'args_changed', message: `The arguments of decision ${entry.id} do not match its fingerprint.` };
  }
  if (!/^[0-9a-f]{64}$/.test(entry.prevHash) || linkHash(entry.prevHash, entry.contentHash) !== entry.hash) {
    return { ...where, problem: 'wrong_hash', message: `The hash of link ${entry.seq} is not sha256(previous hash ‖ content hash).` };
  }
  return null;
}

/** Accumulates entries of a file and reports on them (shared by the JSON Lines and CSV readers). */
class ExportChecker {
  private links: Checked[] = [];
  private entries = 0;
  private unchained = 0;
  readonly problems: ExportProblem[] = [];
  head: HeaderLine['head'] | null = null;
  scope: ExportScope | null = null;
  filters: Record<string, unknown> | null = null;
  /** Entries without a link the database held at export time (null: not in the header). */
  unchainedAllowed: number | null = null;
  /** The line the header was on (0: none yet). */
  headerLine = 0;
  /** The end line's count and where it was, once read. */
  end: { entries: number; line: number } | null = null;
  /** Whether the file must end with an end line (format 2 and the CSV export). */
  endExpected = false;
  /** The last line (or row) number seen, for a problem about the end of the file. */
  lastLine = 0;
  /** The last line that held an entry (0: none yet), so a header after entries is refused. */
  lastEntryLine = 0;

  /** An entry line (or row) after the end line: the file was added to after the export. */
  afterEnd(line: number): boolean {
    if (!this.end) return false;
    this.problems.push({ line, id: null, seq: null, problem: 'unreadable', message: `Line ${line} comes after the end line (line ${this.end.line}).` });
    return true;
  }

  /** Checks the end line against what was read (called once, after the last line). */
  private checkEnd(): boolean {
    if (!this.end) {
      if (this.endExpected) {
        this.problems.push({ line: this.lastLine + 1, id: null, seq: null, problem: 'truncated', message: 'The file has no end line: the download broke off, or the file was cut short.' });
      }
      return false;
    }
    if (this.end.entries !== this.entries) {
      this.problems.push({ line: this.end.line, id: null, seq: null, problem: 'truncated', message: `The end line counts ${this.end.entries} entries; the file holds ${this.entries}: entries were removed or added.` });
      return false;
    }
    return true;
  }


  add(entry: EntryLine, line: number) {
    this.entries += 1;
    this.lastEntryLine = line;
    const kind = entry.entry === 'decision' ? 'decisions' : 'actions';
    if (this.scope && this.scope !== 'chain' && this.scope !== kind) {
      this.problems.push({ line, id: entry.id, seq: entry.seq, problem: 'unreadable', message: `Line ${line} is ${entry.entry === 'decision' ? 'a decision' : 'an admin action'}, which a ${this.scope} export does not hold.` });
    }
    if (entry.seq === null) {
      // An entry older than the chain has no hashes either; one with hashes lost its link number.
      if (entry.contentHash !== null || entry.prevHash !== null || entry.hash !== null) {
        this.problems.push({ line, id: entry.id, seq: null, problem: 'wrong_link_number', message: `Entry ${entry.id} has hashes but no link number: its number was removed.` });
      } else this.unchained += 1;
      return;
    }
    const problem = checkEntry(entry, line);
    if (problem) this.problems.push(problem);
    else this.links.push({ line, id: entry.id, seq: BigInt(entry.seq), prevHash: entry.prevHash!, hash: entry.hash! });
  }

  unreadable(line: number, message: string, id: string | null = null) {
    this.entries += 1;
    this.lastEntryLine = line;
    this.problems.push({ line, id, seq: null, problem: 'unreadable', message });
  }

  report(): ExportReport {
    const complete = this.checkEnd();
    const links = [...this.links].sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    const runs: ExportReport['runs'] = [];
    let previous: Checked | null = null;
    for (const current of links) {
      if (previous && current.seq === previous.seq) {
        this.problems.push({ line: current.line, id: current.id, seq: String(current.seq), problem: 'duplicate_link', message: `Link ${current.seq} appears twice (lines ${previous.line} and ${current.line}).` });
        continue;
      }
      if (previous && current.seq === previous.seq + 1n) {
        if (current.prevHash !== previous.hash) {
          this.problems.push({ line: current.line, id: current.id, seq: String(current.seq), problem: 'wrong_previous_hash', message: `Link ${current.seq} does not follow link ${previous.seq}.` });
        }
        runs[runs.length - 1].toSeq = String(current.seq);
      } else {
        runs.push({ fromSeq: String(current.seq), toSeq: String(current.seq) });
      }
      if (current.seq === 1n && current.prevHash !== GENESIS) {
        this.problems.push({ line: current.line, id: current.id, seq: '1', problem: 'wrong_previous_hash', message: 'Link 1 does not follow the genesis hash.' });
      }
      previous = current;
    }
    let reachesHead = false;
    if (this.head && this.head.seq !== '0') {
      const last = links.find((l) => String(l.seq) === this.head!.seq);
      if (last && last.hash !== this.head.hash) {
        this.problems.push({ line: last.line, id: last.id, seq: String(last.seq), problem: 'head_mismatch', message: `Link ${last.seq} does not have the hash of the chain head in the header.` });
      }
      reachesHead = last !== undefined && last.hash === this.head.hash;
    }
    const startsAtGenesis = links[0]?.seq === 1n && links[0].prevHash === GENESIS;
    this.checkNumbers(links);
    if (this.unchainedAllowed !== null && this.unchained > this.unchainedAllowed) {
      this.problems.push({ line: this.headerLine, id: null, seq: null, problem: 'unreadable', message: `The file holds ${this.unchained} entries without a link, but the database held ${this.unchainedAllowed} such entries (older than the chain) when it was exported: entries were added.` });
    }
    if (this.scope === 'chain') this.checkWholeChain(runs, startsAtGenesis, reachesHead);
    this.problems.sort((a, b) => a.line - b.line);
    return {
      ok: this.problems.length === 0,
      entries: this.entries,
      unchained: this.unchained,
      runs,
      startsAtGenesis,
      head: this.head,
      scope: this.scope,
      filters: this.filters,
      reachesHead,
      complete,
      problems: this.problems,
    };
  }

  /**
   * Link numbers are not covered by a hash, so they are checked against what is: a link whose
   * previous hash is the hash of another entry in the file must be numbered one after it, and no
   * link may be numbered past the head the header names.
   */
  private checkNumbers(links: Checked[]) {
    const byHash = new Map(links.map((link) => [link.hash, link]));
    const headSeq = this.head ? BigInt(this.head.seq) : null;
    for (const link of links) {
      const before = byHash.get(link.prevHash);
      if (before && before.seq !== link.seq - 1n) {
        this.problems.push({ line: link.line, id: link.id, seq: String(link.seq), problem: 'wrong_link_number', message: `Link ${link.seq} follows the entry on line ${before.line}, which is numbered ${before.seq}: a link number was changed.` });
      }
      if (headSeq !== null && link.seq > headSeq) {
        this.problems.push({ line: link.line, id: link.id, seq: String(link.seq), problem: 'wrong_link_number', message: `Link ${link.seq} is past the chain head the header names (${headSeq}).` });
      }
    }
  }

  /** A whole-chain file (scope `chain`): every link from 1 to the head, oldest first, no filters. */
  private checkWholeChain(runs: ExportReport['runs'], startsAtGenesis: boolean, reachesHead: boolean) {
    const headSeq = this.head?.seq ?? '0';
    const whole = headSeq === '0' ? runs.length === 0 : runs.length === 1 && startsAtGenesis && reachesHead;
    if (!whole) {
      const held = runs.map((run) => (run.fromSeq === run.toSeq ? run.fromSeq : `${run.fromSeq}–${run.toSeq}`)).join(', ') || 'none';
      this.problems.push({ line: this.headerLine, id: null, seq: null, problem: 'missing_link', message: `A whole-chain file must hold every link from 1 to the head (${headSeq}); this one holds ${held}.` });
    }
    if (this.filters && Object.keys(this.filters).length > 0) {
      this.problems.push({ line: this.headerLine, id: null, seq: null, problem: 'unreadable', message: 'A whole-chain file has no filters, but this header names some.' });
    }
    const inFileOrder = [...this.links].sort((a, b) => a.line - b.line);
    const misplaced = inFileOrder.find((link, index) => index > 0 && link.seq < inFileOrder[index - 1].seq);
    if (misplaced) {
      this.problems.push({ line: misplaced.line, id: misplaced.id, seq: String(misplaced.seq), problem: 'out_of_order', message: `Link ${misplaced.seq} comes after a later link: a whole-chain file is oldest first.` });
    }
  }
}

/**
 * Verifies a JSON Lines audit export offline: every entry's content hash (recomputed from its
 * fields as RFC 8785 JSON), a decision's argument fingerprints, every link hash
 * (sha256(prevHash ‖ contentHash)), and, where the file holds consecutive link numbers, that each
 * follows the one before; link 1 must follow the genesis hash and the link the header names as the
 * chain head must have the head's hash.
 *
 * What it proves: each entry is as it was written relative to its own hashes, and a run of
 * consecutive links is one piece of the chain. A filtered export has gaps (entries that did not
 * match the filter), so it cannot prove that nothing matching is missing; compare a run's last
 * hash with the live chain (`GET /api/audit/verify` reports the head) to tie it to the database.
 *
 * @param text the file's content (UTF-8 text, one JSON object per line; blank lines are skipped)
 * @returns the report; `problems` name each bad entry by line, id and link number
 */
export function verifyJsonLinesExport(text: string): ExportReport {
  const checker = new ExportChecker();
  // A byte-order mark an editor added is not part of the export.
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    checker.lastLine = line;
    if (checker.afterEnd(line)) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      checker.unreadable(line, `Line ${line} is not JSON.`);
      return;
    }
    // Written by JSON.stringify, so read back and written again it is the same text: a repeated
    // field (JSON.parse keeps the last one, a reader may see the first) or anything added shows.
    if (JSON.stringify(value) !== raw.trim()) {
      checker.unreadable(line, `Line ${line} is not written as the export writes it (a repeated field, or added spaces or text).`);
      return;
    }
    const entry = (value as { entry?: unknown } | null)?.entry;
    if (entry === 'export') {
      const header = anyHeaderLineSchema.safeParse(value);
      if (header.success && checker.headerLine === 0 && checker.lastEntryLine === 0) {
        checker.headerLine = line;
        checker.head = header.data.head;
        checker.filters = header.data.filters;
        checker.scope = header.data.format === EXPORT_FORMAT ? header.data.scope : null;
        checker.unchainedAllowed = header.data.format === EXPORT_FORMAT ? (header.data.scope === 'chain' ? 0 : header.data.unchained) : null;
        checker.endExpected = header.data.format === EXPORT_FORMAT;
      } else {
        checker.problems.push({ line, id: null, seq: null, problem: 'unreadable', message: `Line ${line} is not a header of ${EXPORT_FORMAT}, or not the first line, or a second header.` });
      }
      return;
    }
    if (entry === 'end') {
      const end = endLineSchema.safeParse(value);
      if (end.success) checker.end = { entries: end.data.entries, line };
      else checker.problems.push({ line, id: null, seq: null, problem: 'unreadable', message: `Line ${line} is not an end line ({"entry":"end","entries":<count>}).` });
      return;
    }
    const parsed = (entry === 'decision' ? decisionLineSchema : eventLineSchema).safeParse(value);
    if (!parsed.success) {
      const id = typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : null;
      checker.unreadable(line, `Line ${line} is not an audit entry: ${parsed.error.issues[0]?.path.join('.') || 'entry'} ${parsed.error.issues[0]?.message ?? ''}`.trim(), id);
      return;
    }
    checker.add(parsed.data, line);
  });
  if (checker.headerLine === 0) {
    checker.problems.push({ line: 1, id: null, seq: null, problem: 'unreadable', message: 'The file does not start with the export header ({"entry":"export",…}): it is not a whole export, and its chain head and filters are unknown.' });
  }
  return checker.report();
}

/** The CSV text of a cell value, as the CSV export writes it (JSON values as JSON text). */
export function csvCellText(value: unknown): string {
  return value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * Readable CSV columns the hash covers, and the entry field each shows. The export prefixes a cell
 * starting with a formula character with `'` (OWASP CSV injection), so a cell may differ by that.
 */
const COVERED_COLUMNS: Record<string, (entry: DecisionLine) => unknown> = {
  at: (e) => e.createdAt,
  actorId: (e) => e.actorId,
  actorRole: (e) => e.actorRole,
  kind: (e) => e.kind,
  approved: (e) => e.approved,
  reason: (e) => e.reason,
  fingerprint: (e) => e.fingerprint,
  args: (e) => e.args,
  editedArgs: (e) => e.editedArgs,
  editedFingerprint: (e) => e.editedFingerprint,
  resumeData: (e) => e.resumeData,
};

/**
 * Verifies a CSV audit export offline: each row's `chainEntry` (the entry as JSON) and link columns
 * are checked as verifyJsonLinesExport checks a line, and the readable columns the hash covers
 * (time, actor, outcome, reason, fingerprints, arguments, answer) must show the same values. Other
 * readable columns (agent, requester, why, thread) are not covered by the chain. A CSV has no
 * header line with the chain head.
 *
 * @param text the file's content (RFC 4180, a header row first)
 */
export function verifyCsvExport(text: string): ExportReport {
  const checker = new ExportChecker();
  let records: Record<string, string>[];
  try {
    // Rows end with CRLF as exported, or LF after an editor or a tool re-saved the file.
    records = parse(text.replace(/^\uFEFF/, ''), {
      // The columns the export writes, exactly: a repeated or added column is not read past.
      columns: (header: string[]) => {
        const expected = [...CSV_COLUMNS, ...CSV_CHAIN_COLUMNS];
        if (header.length !== expected.length || header.some((name, index) => name !== expected[index])) {
          throw new Error(`the header row is not the export's columns (${expected.join(',')})`);
        }
        return header;
      },
      skip_empty_lines: true,
      relax_column_count: false,
      record_delimiter: ['\r\n', '\n'],
    });
  } catch (error) {
    const where = (error as { lines?: number }).lines;
    checker.unreadable(
      where ?? 0,
      `The file is not CSV, or it was cut off in the middle of a row${where ? ` (near line ${where})` : ''}: ${(error as Error).message}`,
    );
    return checker.report();
  }
  // A CSV export always ends with its end row (the CSV has no header line to name a format).
  checker.endExpected = true;
  records.forEach((record, index) => {
    const line = index + 1;
    checker.lastLine = line;
    if (checker.afterEnd(line)) return;
    let value: unknown;
    try {
      value = JSON.parse(record.chainEntry ?? '');
    } catch {
      checker.unreadable(line, `Row ${line} has no readable chainEntry.`, record.id ?? null);
      return;
    }
    if ((value as { entry?: unknown } | null)?.entry === 'end') {
      const end = endLineSchema.safeParse(value);
      if (!end.success) {
        checker.unreadable(line, `Row ${line}'s chainEntry is not an end row ({"entry":"end","entries":<count>}).`);
        return;
      }
      checker.end = { entries: end.data.entries, line };
      const filled = Object.entries(record).filter(([column, cell]) => cell !== '' && column !== 'at' && column !== 'chainEntry');
      if (record.at !== csvEndLabel(end.data.entries) || filled.length > 0) {
        checker.problems.push({ line, id: null, seq: null, problem: 'column_changed', message: `Row ${line} (the end row) does not say "${csvEndLabel(end.data.entries)}" with its other cells empty.` });
      }
      return;
    }
    const parsed = decisionLineSchema.omit({ seq: true, contentHash: true, prevHash: true, hash: true }).safeParse(value);
    if (!parsed.success) {
      checker.unreadable(line, `Row ${line}'s chainEntry is not a decision.`, record.id ?? null);
      return;
    }
    const entry: DecisionLine = {
      ...parsed.data,
      seq: record.chainSeq || null,
      contentHash: record.contentHash || null,
      prevHash: record.prevHash || null,
      hash: record.hash || null,
    };
    if (entry.seq !== null && !/^[1-9]\d*$/.test(entry.seq)) {
      checker.unreadable(line, `Row ${line} has an unreadable chainSeq.`, entry.id);
      return;
    }
    for (const [column, field] of Object.entries({ id: (e: DecisionLine) => e.id, ...COVERED_COLUMNS })) {
      const cell = record[column] ?? '';
      const expected = csvCellText(field(entry));
      if (cell !== expected && cell !== `'${expected}`) {
        checker.problems.push({ line, id: entry.id, seq: entry.seq, problem: 'column_changed', message: `Row ${line}'s ${column} does not match the entry its hash covers.` });
      }
    }
    checker.add(entry, line);
  });
  return checker.report();
}

/**
 * Verifies an export of either kind, told apart by its content (a JSON Lines export starts with
 * `{`), so a file saved under another name is still read as what it is.
 */
export function verifyExport(text: string): ExportReport {
  return text.replace(/^\uFEFF/, '').trimStart().startsWith('{') || text.trim() === '' ? verifyJsonLinesExport(text) : verifyCsvExport(text);
}

/**
 * What a report means, in sentences for people (printed by `npm run audit:verify -- --file`).
 * @returns lines of text, the verdict first
 */
export function describeExportReport(report: ExportReport): string[] {
  const out: string[] = [];
  if (report.ok) out.push(`Export holds: ${report.entries} entries, every content hash and link hash recomputed.`);
  else out.push(`Export BROKEN: ${report.problems.length} problem(s) in ${report.entries} entries.`);
  for (const problem of report.problems) {
    out.push(`  line ${problem.line}${problem.id ? ` (entry ${problem.id}${problem.seq ? `, link ${problem.seq}` : ''})` : ''}: ${problem.problem}. ${problem.message}`);
  }
  const runs = report.runs.map((run) => (run.fromSeq === run.toSeq ? run.fromSeq : `${run.fromSeq}–${run.toSeq}`));
  if (runs.length > 0) out.push(`Link runs (each link follows the one before): ${runs.length > 12 ? `${runs.slice(0, 12).join(', ')} … (${runs.length})` : runs.join(', ')}.`);
  if (report.scope || report.filters) {
    const filters = Object.entries(report.filters ?? {}).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
    out.push(`Header: ${report.scope ? `${report.scope} export` : 'format 1 export'}, ${filters.length > 0 ? `filters ${filters.join(', ')}` : 'no filters'} (as the exporter wrote them: not covered by a hash).`);
  }
  if (report.complete) out.push(`The file ends with its end line (${report.entries} entries): nothing was cut off its end.`);
  else if (report.ok) out.push('The file has no end line (an export of format 1): whether something was cut off its end cannot be told.');
  if (report.runs.length === 1 && report.startsAtGenesis && report.reachesHead && report.complete) {
    out.push('One unbroken run from the genesis hash to the chain head at export time: the file is the whole chain.');
  } else if (report.runs.length > 0) {
    out.push(
      'Gaps between runs are links the file does not hold: entries outside the filter, entries of the other kind (a decisions export holds no admin actions and the reverse; the whole-chain export, GET /api/audit/chain, holds both), or removed ones. Such a file proves each entry and each run, not that nothing matching is missing.',
    );
  }
  if (report.head) out.push(`Chain head at export: link ${report.head.seq} ${report.head.hash}${report.reachesHead ? ' (in the file)' : ''}.`);
  if (report.unchained > 0) out.push(`${report.unchained} entries are older than the chain and not covered by it.`);
  return out;
}
