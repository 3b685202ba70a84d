import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { fingerprintToolCall } from '@/lib/agent/fingerprint';
import { contentHash, decisionContent, eventContent, GENESIS, linkHash } from './chain';
import { CSV_COLUMNS, csvEndCommentLine, decisionLine, EXPORT_FORMAT, eventLine } from './export';
import { verifyCsvExport, verifyJsonLinesExport } from './export-verify';
import { auditCsv, type ChainedAuditEntry } from './queries';

/*
 * The offline verifier on files the exporter writes (auditCsv, decisionLine), built here from
 * decisions whose links are computed as the database computes them: no database.
 */

const TOOL = 'issue-refund';

/** What differs between the test's decisions. */
interface Spec {
  reason?: string | null;
  /** The call's own run (the hash covers it); for a top-level call also the run people address. */
  runId?: string;
  /** A sub-agent's call: the top-level run and the delegation path people address it by. */
  subAgent?: { topRunId: string; path: string };
}

/** Decisions 1…n as consecutive links from the genesis hash, as the audit export reads them. */
function chainedEntries(specs: Spec[]): ChainedAuditEntry[] {
  let prevHash = GENESIS;
  return specs.map((spec, index) => {
    const n = index + 1;
    const args = { orderId: `ord-${n}`, amount: 100 + n };
    const runId = spec.runId ?? `run-${n}`;
    const row = {
      id: `dec-${n}`,
      pendingCallId: `pc-${n}`,
      runId,
      toolCallId: `call-${n}`,
      toolName: TOOL,
      kind: 'decline',
      approved: false,
      reason: spec.reason === undefined ? `reason ${n}` : spec.reason,
      actorId: 'rita',
      actorRole: 'reviewer',
      fingerprint: fingerprintToolCall({ toolName: TOOL, args }),
      args,
      editedArgs: null,
      editedFingerprint: null,
      resumeData: null,
      createdAt: new Date(Date.UTC(2026, 10, 30, 12, 0, n)),
    };
    const content = contentHash(decisionContent(row));
    const link = { chainSeq: String(n), contentHash: content, prevHash, hash: linkHash(prevHash, content) };
    prevHash = link.hash;
    return {
      id: row.id,
      at: row.createdAt.toISOString(),
      actorId: row.actorId,
      actorName: 'Rita Reviewer',
      actorEmail: 'rita@example.com',
      actorRole: row.actorRole,
      kind: 'decline',
      approved: false,
      reason: row.reason,
      toolName: TOOL,
      description: null,
      agentId: 'support',
      chain: ['support'],
      runId: spec.subAgent?.topRunId ?? runId,
      toolCallId: spec.subAgent ? `${spec.subAgent.path}~${row.toolCallId}` : row.toolCallId,
      threadId: 'thread-1',
      requester: 'ada',
      requesterName: 'Ada Lovelace',
      requesterEmail: 'ada@example.com',
      fingerprint: row.fingerprint,
      args,
      editedArgs: null,
      editedFingerprint: null,
      resumeData: null,
      why: 'amount over 100',
      quorum: null,
      approvedBy: [],
      activity: [],
      chained: { ...row, ...link },
    } satisfies ChainedAuditEntry;
  });
}

/** The CSV export of `entries`, as the audit page's CSV button downloads it (byte-order mark, header, rows, end comment line). */
const csvOf = (entries: ChainedAuditEntry[]) => `${auditCsv(entries)}${csvEndCommentLine(entries.length)}`;

/** The line an editor shows `needle` on: one line per CRLF, lone CR or lone LF before it. */
function editorLine(text: string, needle: string): number {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`${needle} not in the text`);
  return 1 + (text.slice(0, at).match(/\r\n|\r|\n/g)?.length ?? 0);
}

describe('verifyCsvExport: the readable columns against the entry its hash covers', () => {
  const top = chainedEntries([{}, {}, { runId: 'run-child', subAgent: { topRunId: 'run-top', path: 'delegate-1' } }]);

  it('a CSV as exported verifies, a sub-agent’s call (top-level run, qualified call id) included', () => {
    expect(verifyCsvExport(csvOf(top))).toMatchObject({ ok: true, entries: 3, complete: true, problems: [] });
  });

  it.each([
    ['toolName', 0, { toolName: 'delete-everything' }],
    ['runId', 0, { runId: 'run-elsewhere' }],
    ['toolCallId', 0, { toolCallId: 'call-9' }],
    // A sub-agent's call: its own id is the last part of the qualified id.
    ['toolCallId', 2, { toolCallId: 'delegate-1~call-9' }],
    // A top-level call (the row shows the entry's own run) given a delegation path.
    ['toolCallId', 0, { toolCallId: 'delegate-1~call-1' }],
    // A sub-agent's call shown as a top-level one: its run must then be the entry's own.
    ['runId', 2, { toolCallId: 'call-3' }],
  ] as const)('an edited %s cell (row %i, %j) no longer verifies', (column, index, edit) => {
    const edited = top.map((entry, i) => (i === index ? { ...entry, ...edit } : entry));
    const report = verifyCsvExport(csvOf(edited));
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      expect.objectContaining({ line: index + 2, id: top[index].id, problem: 'column_changed', message: `Line ${index + 2}'s ${column} does not match the entry its hash covers.` }),
    ]);
  });

  it('every readable column is compared, or named in the report as covered by no hash', () => {
    for (const column of CSV_COLUMNS) {
      const edited = top.map((entry, i) => (i === 0 ? { ...entry, [column]: 'edited' } : entry));
      const report = verifyCsvExport(csvOf(edited));
      if (report.ok) expect(report.notCovered?.columns, column).toContain(column);
      else expect(report.problems.map((p) => p.message).join(' '), column).toContain(`Line 2's ${column} does not match`);
    }
    const report = verifyCsvExport(csvOf(top));
    expect(report.notCovered).toEqual({ columns: ['actorName', 'actorEmail', 'agentId', 'requester', 'requesterName', 'requesterEmail', 'why'], subAgentRows: 1 });
  });

  it('what a sub-agent’s row shows beyond the hash (the top-level run, the delegation path) is counted, not passed in silence', () => {
    // The path before the call's own id is not covered: changed, the file still holds …
    const moved = verifyCsvExport(csvOf(top.map((entry, i) => (i === 2 ? { ...entry, runId: 'run-other', toolCallId: 'delegate-7~call-3' } : entry))));
    expect(moved).toMatchObject({ ok: true, notCovered: { subAgentRows: 1 } });
  });

  it('an entry older than the chain (no tool name in its entry) is read past on toolName', () => {
    const [entry] = chainedEntries([{}]);
    const old = { ...entry, chained: { ...entry.chained, toolName: null, chainSeq: null, contentHash: null, prevHash: null, hash: null } };
    expect(verifyCsvExport(csvOf([old]))).toMatchObject({ ok: true, unchained: 1 });
  });
});

describe('the CSV export as CSV readers and spreadsheets read it', () => {
  // Cells that start with `#` or hold one: a reader told that `#` starts a comment must not cut them.
  const entries = chainedEntries([{ reason: '# not a comment' }, { reason: 'see issue #5, ünïcödé ✓' }, {}]);
  const csv = csvOf(entries);
  const read = (text: string) =>
    parse(text, { bom: true, columns: true, comment: '#', comment_no_infix: true, record_delimiter: ['\r\n', '\n'], relax_column_count: false }) as Record<string, string>[];

  it('starts with a UTF-8 byte-order mark, so Excel reads it as UTF-8', () => {
    expect(csv.startsWith('\uFEFFat,')).toBe(true);
    expect(new TextEncoder().encode(csv).slice(0, 3)).toEqual(new Uint8Array([0xef, 0xbb, 0xbf]));
  });

  it('every record is a data row with the header’s columns: the end line is a `#` comment, not a row', () => {
    const records = read(csv);
    expect(records).toHaveLength(entries.length);
    expect(records.map((r) => r.id)).toEqual(entries.map((e) => e.id));
    expect(records.map((r) => r.reason)).toEqual(entries.map((e) => e.reason));
    for (const record of records) expect(Object.keys(record)).toEqual([...CSV_COLUMNS, 'id', 'chainSeq', 'contentHash', 'prevHash', 'hash', 'chainEntry']);
    expect(csv.endsWith('\r\n# End of export: 3 decisions\r\n')).toBe(true);
    // A reader that does not skip comments reads the end line as one cell (no quote, no comma in it), never as a row of the header's columns.
    const plain = parse(csv, { bom: true, relax_column_count: true }) as string[][];
    expect(plain.filter((row) => row.length !== plain[0].length)).toEqual([['# End of export: 3 decisions']]);
  });

  it('names and emails stand beside the person ids', () => {
    const [record] = read(csv);
    expect(record).toMatchObject({ actorId: 'rita', actorName: 'Rita Reviewer', actorEmail: 'rita@example.com', requester: 'ada', requesterName: 'Ada Lovelace', requesterEmail: 'ada@example.com' });
  });

  it('verifies with or without the byte-order mark, and LF line ends', () => {
    expect(verifyCsvExport(csv)).toMatchObject({ ok: true, entries: 3, complete: true, problems: [] });
    expect(verifyCsvExport(csv.replace(/^\uFEFF/, ''))).toMatchObject({ ok: true, complete: true });
    expect(verifyCsvExport(csv.replaceAll('\r\n', '\n'))).toMatchObject({ ok: true, complete: true });
  });

  it('a file without its end comment line, or with another count in it, or with a changed comment, is caught', () => {
    const withoutEnd = csv.slice(0, csv.lastIndexOf('#'));
    expect(verifyCsvExport(withoutEnd)).toMatchObject({ ok: false, complete: false, problems: [expect.objectContaining({ problem: 'truncated' })] });
    expect(verifyCsvExport(csv.replace('# End of export: 3', '# End of export: 4')).problems).toEqual([expect.objectContaining({ problem: 'truncated' })]);
    // A changed end line is named by its line (and the file then has no end line to count with).
    const changed = verifyCsvExport(csv.replace('# End of export: 3 decisions', '# End of export: 3 decisions, honestly'));
    expect(changed.ok).toBe(false);
    expect(changed.problems).toEqual(expect.arrayContaining([expect.objectContaining({ problem: 'unreadable', line: 5 }), expect.objectContaining({ problem: 'truncated' })]));
    // An entry's row taken out, the end line kept: its count no longer matches.
    const lines = csv.split('\r\n');
    expect(verifyCsvExport([...lines.slice(0, 2), ...lines.slice(3)].join('\r\n')).problems).toEqual([expect.objectContaining({ problem: 'truncated' })]);
    // A changed readable cell is still named.
    expect(verifyCsvExport(csv.replace('see issue #5', 'see issue #6')).problems).toEqual([expect.objectContaining({ id: entries[1].id, problem: 'column_changed' })]);
  });

  it('a file written before the name columns and the end comment (no byte-order mark, end row) still verifies', () => {
    const records = read(csv);
    const oldColumns = Object.keys(records[0]).filter((c) => !/^(actor|requester)(Name|Email)$/.test(c));
    const endRow = oldColumns.map((c) => (c === 'at' ? 'End of export: 3 decisions' : c === 'chainEntry' ? '{"entry":"end","entries":3}' : ''));
    const old = stringify([oldColumns, ...records.map((r) => oldColumns.map((c) => r[c])), endRow], { record_delimiter: 'windows' });
    expect(verifyCsvExport(old)).toMatchObject({ ok: true, entries: 3, complete: true, notCovered: { columns: ['agentId', 'requester', 'why'] } });
    expect(verifyCsvExport(old.replace('End of export: 3', 'End of export: 4')).ok).toBe(false);
  });
});

describe('verifyCsvExport: the line a problem names', () => {
  it('counts lines as csv-parse does: every CR and every LF inside a quoted cell, a CRLF between rows once', () => {
    const lines = (text: string) => (parse(text, { columns: true, record_delimiter: ['\r\n', '\n'], info: true }) as { info: { lines: number } }[]).map((r) => r.info.lines);
    // Each record with the line it ends on, as csv-parse counts them.
    expect(lines('a,b\r\n"x\ny",1\r\nz,2\r\n')).toEqual([3, 4]);
    expect(lines('a,b\r\n"x\ry",1\r\nz,2\r\n')).toEqual([3, 4]);
    // A CRLF inside a cell counts twice: one line more than an editor shows, for this row and every later one.
    expect(lines('a,b\r\n"x\r\ny",1\r\nz,2\r\n')).toEqual([4, 5]);
    expect(lines('a,b\n"x\r\ny",1\nz,2\n')).toEqual([4, 5]);
    expect(lines('a,b\r\n"x\r\r\ny",1\r\nz,2\r\n')).toEqual([5, 6]);
    expect(lines('a,b\r\n"x\n\ry",1\r\nz,2\r\n')).toEqual([4, 5]);
  });

  it.each([
    ['CRLF', 'first\r\nsecond'],
    ['two CRLFs', 'first\r\n\r\nthird'],
    ['lone CR', 'first\rsecond'],
    ['lone LF', 'first\nsecond'],
    ['CR CR LF', 'first\r\r\nthird'],
    ['LF CR', 'first\n\rthird'],
  ])('a %s inside a quoted cell: each row is named by the line an editor shows it starting on', (_name, reason) => {
    const entries = chainedEntries([{ reason }, { reason: 'plain' }, { reason }, { reason: 'plain too' }]);
    // Every row's readable reason edited, so every row is named.
    const csv = csvOf(entries.map((entry) => ({ ...entry, reason: `${entry.reason} (edited)` })));
    // The export quotes the cell and keeps its line breaks as they are.
    expect(csv).toContain(`"${reason} (edited)"`);
    const report = verifyCsvExport(csv);
    expect(report.problems.map((p) => [p.id, p.line])).toEqual(entries.map((entry) => [entry.id, editorLine(csv, entry.at)]));
    // An editor's own count: the header, a row of 2 or 3 lines, a row of 1, a row of 2 or 3, a row of 1.
    const rowLines = 1 + (reason.match(/\r\n|\r|\n/g)?.length ?? 0);
    expect(report.problems.map((p) => p.line)).toEqual([2, 2 + rowLines, 3 + rowLines, 3 + 2 * rowLines]);
  });

  it('the row that holds the line breaks is named by the line it starts on, re-saved with LF line ends too', () => {
    const entries = chainedEntries([{ reason: 'a\r\nb\r\nc' }, { reason: 'x\r\ny' }]);
    const csv = csvOf(entries.map((entry) => ({ ...entry, reason: `${entry.reason}!` })));
    expect(verifyCsvExport(csv).problems.map((p) => p.line)).toEqual([2, 5]);
    const lf = csv.replaceAll('\r\n', '\n');
    expect(verifyCsvExport(lf).problems.map((p) => p.line)).toEqual([2, 5]);
  });
});

describe('verifyJsonLinesExport: every field of an entry line is covered', () => {
  const [first, second] = chainedEntries([{}, { reason: null }]);
  const event = (() => {
    const row = { id: 'evt-3', action: 'user.role_changed', actorId: 'user-alex', actorRole: 'admin', targetType: 'user', targetId: 'user-ben', details: { from: 'user', to: 'reviewer' }, createdAt: new Date(Date.UTC(2026, 10, 30, 12, 0, 3)) };
    const content = contentHash(eventContent(row));
    return eventLine({ ...row, chainSeq: '3', contentHash: content, prevHash: second.chained.hash, hash: linkHash(second.chained.hash!, content) });
  })();
  const lines = [decisionLine(first.chained), decisionLine(second.chained), event];
  const file = (entries: object[]) =>
    [
      { entry: 'export', format: EXPORT_FORMAT, exportedAt: '2026-11-30T13:00:00.000Z', scope: 'chain', unchained: 0, filters: {}, head: { seq: '3', hash: event.hash } },
      ...entries,
      { entry: 'end', entries: entries.length },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n');
  /** Another value the field may hold (so the line still reads as an entry). */
  const other = (key: string, value: unknown): unknown => {
    if (key === 'createdAt') return '2026-11-30T12:59:59.000Z';
    if (key === 'seq') return '7';
    if (['args', 'editedArgs', 'resumeData', 'details'].includes(key)) return { ...(value as object | null), changed: true };
    if (typeof value === 'boolean') return !value;
    return value === null ? 'x' : `${value as string}x`;
  };

  it('the file as written holds', () => {
    expect(verifyJsonLinesExport(file(lines))).toMatchObject({ ok: true, entries: 3, startsAtGenesis: true, reachesHead: true, complete: true, notCovered: null });
  });

  it.each(lines.flatMap((line, index) => Object.keys(line).filter((key) => key !== 'entry').map((key) => [line.entry, key, index] as const)))('a changed %s field %s is found', (_entry, key, index) => {
    const changed = lines.map((line, i) => (i === index ? { ...line, [key]: other(key, (line as Record<string, unknown>)[key]) } : line));
    expect(verifyJsonLinesExport(file(changed)).ok).toBe(false);
  });
});
