import { parse } from 'csv-parse/sync';
import { CALL_ID_SEPARATOR } from '@/lib/agent/call-id';
import { ExportChecker, type ExportReport } from './export-check';
import {
  anyHeaderLineSchema,
  CSV_CHAIN_COLUMNS,
  CSV_COLUMNS,
  CSV_COLUMNS_WITHOUT_NAMES,
  CSV_END_COMMENT,
  csvCellText,
  csvEndLabel,
  decisionLineSchema,
  endLineSchema,
  eventLineSchema,
  EXPORT_FORMAT,
  type DecisionLine,
} from './export';

/**
 * The offline verifier of audit exports (`npm run audit:verify -- --file`): reads a JSON Lines or
 * CSV export line by line into ExportChecker (./export-check.ts). Pure functions: no database.
 */

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
 * Every field of an entry line is covered by the entry's hashes (content hash, fingerprints, link
 * hash) or, for the link number, checked against its neighbours and the head, so the report's
 * `notCovered` is null.
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

/** A readable column of the CSV export. */
type CsvColumn = (typeof CSV_COLUMNS)[number];

/**
 * Whether a cell shows `value` as the export writes it (csvCellText). The export prefixes a cell
 * starting with a formula character with `'` (OWASP CSV injection), so a cell may differ by that.
 */
function shows(cell: string | undefined, value: unknown): boolean {
  const text = csvCellText(value);
  return cell === text || cell === `'${text}`;
}

/** A column that shows one field of the entry, as it is. */
const field =
  (read: (entry: DecisionLine) => unknown) =>
  (cell: string, entry: DecisionLine): boolean =>
    shows(cell, read(entry));

/**
 * The row of a sub-agent's call: its `toolCallId` cell is the qualified id people address the call
 * by (`<delegation id>~…~<own id>`, lib/agent/call-id.ts), ending with the entry's own call id, and
 * its `runId` cell names the top-level run, never the sub-agent's own run the entry holds. An entry
 * older than the chain is never one: nothing of it is covered (and older rows were addressed otherwise).
 */
function isSubAgentRow(record: Record<string, string>, entry: DecisionLine): boolean {
  return entry.seq !== null && (record.toolCallId ?? '').endsWith(`${CALL_ID_SEPARATOR}${entry.toolCallId}`) && !shows(record.runId, entry.runId);
}

/**
 * Every readable column of the CSV export and how the verifier checks it against the entry its hash
 * covers (`chainEntry` with the link columns): a check, true when the cell shows what the entry
 * holds, or `not covered` for a column that shows what no hash covers (named in the report). Typed
 * over CSV_COLUMNS, so a column added to the export must be given one or the other.
 */
const CSV_COLUMN_CHECKS: Record<CsvColumn, ((cell: string, entry: DecisionLine, record: Record<string, string>) => boolean) | 'not covered'> = {
  at: field((e) => e.createdAt),
  actorId: field((e) => e.actorId),
  actorRole: field((e) => e.actorRole),
  kind: field((e) => e.kind),
  approved: field((e) => e.approved),
  reason: field((e) => e.reason),
  // An entry older than the chain may have no tool name (it was not stored then); the cell is the call's.
  toolName: (cell, e) => e.toolName === null || shows(cell, e.toolName),
  agentId: 'not covered',
  requester: 'not covered',
  // Read from the users table at export time (a person may rename themselves later): no hash covers them.
  actorName: 'not covered',
  actorEmail: 'not covered',
  requesterName: 'not covered',
  requesterEmail: 'not covered',
  // A call addressed by its own id is a top-level call: the row's run is the entry's run. A sub-agent's
  // row names the top-level run, which no hash covers (counted in the report's notCovered).
  runId: (cell, e, record) => e.seq === null || !shows(record.toolCallId, e.toolCallId) || shows(cell, e.runId),
  // The entry's own call id, or a sub-agent's qualified id ending with it (the path before is not covered).
  toolCallId: (cell, e, record) => e.seq === null || shows(cell, e.toolCallId) || isSubAgentRow(record, e),
  fingerprint: field((e) => e.fingerprint),
  args: field((e) => e.args),
  editedArgs: field((e) => e.editedArgs),
  editedFingerprint: field((e) => e.editedFingerprint),
  resumeData: field((e) => e.resumeData),
  why: 'not covered',
};

/** The readable columns no hash covers, in the export's order. */
const NOT_COVERED_COLUMNS = CSV_COLUMNS.filter((column) => CSV_COLUMN_CHECKS[column] === 'not covered');

/**
 * The line breaks in a row's cells, counted as csv-parse counts lines (every CR and every LF: a CRLF
 * inside a quoted cell is two lines to it, while a CRLF between rows is one) and as an editor shows
 * them (a CRLF, a lone CR and a lone LF one line each).
 */
function lineBreaks(record: Record<string, string>): { parser: number; editor: number } {
  let parser = 0;
  let editor = 0;
  for (const cell of Object.values(record)) {
    parser += cell.match(/[\r\n]/g)?.length ?? 0;
    editor += cell.match(/\r\n|\r|\n/g)?.length ?? 0;
  }
  return { parser, editor };
}

/**
 * The CSV's end comment line (`# End of export: N decisions`, csvEndCommentLine in ./export.ts):
 * the file's last non-empty line when it starts with `#`, split off before the rows are parsed.
 * @returns the text before it, and the comment's text and line (null when the file has none)
 */
function splitEndComment(text: string): { rows: string; comment: { text: string; line: number } | null } {
  const match = /(^|\r\n|\r|\n)(#[^\r\n]*)[\r\n]*$/.exec(text);
  if (!match) return { rows: text, comment: null };
  const rows = text.slice(0, match.index + match[1].length);
  return { rows, comment: { text: match[2], line: 1 + (rows.match(/\r\n|\r|\n/g)?.length ?? 0) } };
}

/**
 * Verifies a CSV audit export offline: each row's `chainEntry` (the entry as JSON) and link columns
 * are checked as verifyJsonLinesExport checks a line, and every readable column the hash covers
 * must show what `chainEntry` holds (`column_changed` otherwise): time, actor and role, kind,
 * outcome, reason, tool name, run and call id, fingerprints, arguments, answer, and the `id`
 * column. The run and call id are the ones people address the call by: for a sub-agent's call the
 * top-level run and the qualified id `<delegation id>~…~<own id>`, of which the hash covers only the
 * own id (the sub-agent's run id is in `chainEntry`). The columns `agentId`, `requester` and `why`
 * are covered by no hash, nor are the name and email columns beside the person ids (`actorName`,
 * `actorEmail`, `requesterName`, `requesterEmail`: read from the users table at export time). The
 * report's `notCovered` names those columns and counts the sub-agent rows. Entries older than the chain (no link) are covered by nothing; their run and call id are
 * not compared. A CSV has no header line with the chain head.
 *
 * The file ends with the end comment line `# End of export: N decisions` (not a row); files
 * written before it end with an end row ("End of export: N decisions", the end line in
 * `chainEntry`) and have no name and email columns, and are read as well. A leading UTF-8
 * byte-order mark (the export writes one) is skipped; a file without one is read the same.
 *
 * @param text the file's content (RFC 4180, a header row first; rows end with CRLF or LF)
 * @returns the report; `problems` name each bad row by the line an editor shows it starting on (a
 *   CRLF, lone CR or lone LF inside a quoted cell is one line), its id and link number
 */
export function verifyCsvExport(text: string): ExportReport {
  const checker = new ExportChecker();
  let records: { record: Record<string, string>; info: { lines: number } }[];
  const { rows, comment } = splitEndComment(text.replace(/^\uFEFF/, ''));
  let columns: string[] = [];
  try {
    // Rows end with CRLF as exported, or LF after an editor or a tool re-saved the file.
    records = parse(rows, {
      // The columns the export writes (or wrote before the name and email columns), exactly: a
      // repeated or added column is not read past.
      columns: (header: string[]) => {
        const matches = (expected: readonly string[]) => header.length === expected.length && header.every((name, index) => name === expected[index]);
        const expected = [...CSV_COLUMNS, ...CSV_CHAIN_COLUMNS];
        if (!matches(expected) && !matches([...CSV_COLUMNS_WITHOUT_NAMES, ...CSV_CHAIN_COLUMNS])) {
          throw new Error(`the header row is not the export's columns (${expected.join(',')})`);
        }
        columns = header;
        return header;
      },
      skip_empty_lines: true,
      relax_column_count: false,
      record_delimiter: ['\r\n', '\n'],
      // Each record with the line it ends on, so problems name the file's line (the header is line 1).
      info: true,
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
  const notCovered = { columns: NOT_COVERED_COLUMNS.filter((column) => columns.includes(column)), subAgentRows: 0 };
  checker.notCovered = notCovered;
  // Lines csv-parse counted in earlier rows' cells that an editor does not show (one per CRLF).
  let overcounted = 0;
  records.forEach(({ record, info }) => {
    // The line the row starts on: where csv-parse says it ends, less the line breaks inside its
    // quoted cells as csv-parse counts them, less what it over-counted in the rows before.
    const breaks = lineBreaks(record);
    const line = info.lines - breaks.parser - overcounted;
    overcounted += breaks.parser - breaks.editor;
    checker.lastLine = line;
    if (checker.afterEnd(line)) return;
    let value: unknown;
    try {
      value = JSON.parse(record.chainEntry ?? '');
    } catch {
      checker.unreadable(line, `Line ${line} has no readable chainEntry.`, record.id ?? null);
      return;
    }
    if ((value as { entry?: unknown } | null)?.entry === 'end') {
      const end = endLineSchema.safeParse(value);
      if (!end.success) {
        checker.unreadable(line, `Line ${line}'s chainEntry is not an end row ({"entry":"end","entries":<count>}).`);
        return;
      }
      checker.end = { entries: end.data.entries, line };
      const filled = Object.entries(record).filter(([column, cell]) => cell !== '' && column !== 'at' && column !== 'chainEntry');
      if (record.at !== csvEndLabel(end.data.entries) || filled.length > 0) {
        checker.problems.push({ line, id: null, seq: null, problem: 'column_changed', message: `Line ${line} (the end row) does not say "${csvEndLabel(end.data.entries)}" with its other cells empty.` });
      }
      return;
    }
    const parsed = decisionLineSchema.omit({ seq: true, contentHash: true, prevHash: true, hash: true }).safeParse(value);
    if (!parsed.success) {
      checker.unreadable(line, `Line ${line}'s chainEntry is not a decision.`, record.id ?? null);
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
      checker.unreadable(line, `Line ${line} has an unreadable chainSeq.`, entry.id);
      return;
    }
    const checks = [['id', field((e) => e.id)] as const, ...Object.entries(CSV_COLUMN_CHECKS)];
    for (const [column, check] of checks) {
      if (check === 'not covered' || check(record[column] ?? '', entry, record)) continue;
      checker.problems.push({ line, id: entry.id, seq: entry.seq, problem: 'column_changed', message: `Line ${line}'s ${column} does not match the entry its hash covers.` });
    }
    if (isSubAgentRow(record, entry)) notCovered.subAgentRows += 1;
    checker.add(entry, line);
  });
  if (comment) readEndComment(checker, comment);
  return checker.report();
}

/** Reads the CSV's end comment line into the checker: exactly `# End of export: N decisions` (csvEndCommentLine). */
function readEndComment(checker: ExportChecker, comment: { text: string; line: number }): void {
  if (checker.afterEnd(comment.line)) return;
  const count = /^# End of export: (0|[1-9]\d{0,15}) decisions?$/.exec(comment.text);
  const entries = count ? Number(count[1]) : null;
  if (entries === null || comment.text !== `${CSV_END_COMMENT} ${csvEndLabel(entries)}`) {
    checker.problems.push({ line: comment.line, id: null, seq: null, problem: 'unreadable', message: `Line ${comment.line} is not the end line ("# ${csvEndLabel(0).replace('0', '<count>')}").` });
    return;
  }
  checker.end = { entries, line: comment.line };
}

/**
 * Verifies an export of either kind, told apart by its content (a JSON Lines export starts with
 * `{`), so a file saved under another name is still read as what it is.
 */
export function verifyExport(text: string): ExportReport {
  return text.replace(/^\uFEFF/, '').trimStart().startsWith('{') || text.trim() === '' ? verifyJsonLinesExport(text) : verifyCsvExport(text);
}
