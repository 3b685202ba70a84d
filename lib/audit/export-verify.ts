import { parse } from 'csv-parse/sync';
import { ExportChecker, type ExportReport } from './export-check';
import {
  anyHeaderLineSchema,
  CSV_CHAIN_COLUMNS,
  CSV_COLUMNS,
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
 * @returns the report; `problems` name each bad row by the file line it starts on, id and link number
 */
export function verifyCsvExport(text: string): ExportReport {
  const checker = new ExportChecker();
  let records: { record: Record<string, string>; info: { lines: number } }[];
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
  records.forEach(({ record, info }) => {
    // The line the row starts on: where it ends, less the line breaks inside its quoted cells.
    const line = info.lines - Object.values(record).reduce((breaks, cell) => breaks + (cell.match(/\n/g)?.length ?? 0), 0);
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
    for (const [column, field] of Object.entries({ id: (e: DecisionLine) => e.id, ...COVERED_COLUMNS })) {
      const cell = record[column] ?? '';
      const expected = csvCellText(field(entry));
      if (cell !== expected && cell !== `'${expected}`) {
        checker.problems.push({ line, id: entry.id, seq: entry.seq, problem: 'column_changed', message: `Line ${line}'s ${column} does not match the entry its hash covers.` });
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
