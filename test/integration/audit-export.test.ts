import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { createTool } from '../../lib/agent/tool';
import { contentHash, eventContent, linkHash } from '../../lib/audit/chain';
import { recordAuditEvent } from '../../lib/audit/events';
import { chainJsonLinesStream } from '../../lib/audit/chain-export';
import { describeExportReport } from '../../lib/audit/export-check';
import { verifyCsvExport, verifyJsonLinesExport } from '../../lib/audit/export-verify';
import { pagedExportStream } from '../../lib/audit/stream';
import { verifyAuditChain } from '../../lib/audit/verify';
import { auditCsvStream, auditJsonLinesStream, auditQuerySchema } from '../../lib/audit/queries';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { databaseUrl, newThreadId } from '../support/harness';
import { createScratchDatabase } from '../support/scratch-db';
import { runningEmbeddedPostgres } from '../../lib/db/embedded';

/*
 * Audit exports carry the hash chain: a JSON Lines or CSV download of a filtered audit log is
 * checked offline by `npm run audit:verify -- --file` (run here as the real command, no database),
 * which names the entry whose bytes were changed.
 */

const toolId = `export-gated-${Date.now()}`;
const user = { id: 'user-ada', role: 'user' as const };
const gated = createTool({
  id: toolId,
  description: 'needs approval',
  inputSchema: z.object({ n: z.string() }),
  requireApproval: true,
  execute: ({ n }) => ({ ok: n }),
});
const db = createPrismaClient(databaseUrl(), { maxConnections: 3 });
const agent = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'export', model: new ScriptedModel(), tools: [gated], store: new PrismaAgentStore(db) });
process.env.DATABASE_URL = databaseUrl();
let dir: string;

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

/** Runs `npm run audit:verify -- --file <file>` as an auditor would (the script itself, no database). */
async function verifyCli(file: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/audit-verify.ts', '--file', file], {
      env: { ...process.env, DATABASE_URL: 'postgres://nowhere.invalid:1/none' },
    });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

/** Decides one call of the test's tool; returns the decision's id. */
async function decide(n: string, reason: string | null) {
  const run = await agent.generate(`/tool ${toolId} ${JSON.stringify({ n })}`, { threadId: newThreadId(), resourceId: user.id });
  const toolCallId = run.suspendedToolCalls[0].toolCallId;
  if (reason === null) await agent.approveToolCallGenerate({ runId: run.runId, toolCallId, actor: user });
  else await agent.declineToolCallGenerate({ runId: run.runId, toolCallId, actor: user, reason });
  return (await db.decision.findFirstOrThrow({ where: { runId: run.runId } })).id;
}

const awkward = ['-1 is not a refund, "really"', '=HYPERLINK("x")', 'tab\there, comma, ünïcödé ✓'];
let ids: string[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'audit-export-'));
  // The requester and decider as a person in the users table (better-auth's), with a name to show beside the id.
  const person = { name: 'Ada Lövelace, 愛達', email: 'ada.export@example.test' };
  await db.user.upsert({ where: { id: user.id }, create: { id: user.id, role: user.role, ...person }, update: person });
  ids = [];
  // Written one after another with nothing in between: consecutive links of the chain.
  for (const [i, reason] of [null, ...awkward].entries()) ids.push(await decide(`n${i}`, reason));
}, 60_000);
afterAll(() => db.$disconnect());

describe('audit exports with the hash chain', () => {
  it('a JSON Lines export of a filtered log verifies offline; one changed byte is named by line and entry', async () => {
    const jsonl = await text(auditJsonLinesStream(auditQuerySchema.parse({ format: 'jsonl', toolName: toolId }), db));
    const lines = jsonl.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1 + ids.length + 1);
    const header = JSON.parse(lines[0]);
    expect(header).toMatchObject({ entry: 'export', format: 'countersign-audit-export/2', filters: { toolName: toolId } });
    // The end line counts the entries: written only after the last page was read.
    expect(JSON.parse(lines.at(-1)!)).toEqual({ entry: 'end', entries: ids.length });
    const entries = lines.slice(1, -1).map((line) => JSON.parse(line));
    expect(entries.map((e) => e.id).sort()).toEqual([...ids].sort());
    // Each line: the link and the canonical content fields the hash covers, nothing more.
    expect(Object.keys(entries[0]).sort()).toEqual(
      ['entry', 'seq', 'contentHash', 'prevHash', 'hash', 'id', 'pendingCallId', 'runId', 'toolCallId', 'toolName', 'kind', 'approved', 'reason', 'actorId', 'actorRole', 'fingerprint', 'args', 'editedArgs', 'editedFingerprint', 'resumeData', 'createdAt'].sort(),
    );

    const file = path.join(dir, 'export.jsonl');
    await writeFile(file, jsonl);
    const good = await verifyCli(file);
    expect(good.code, good.out).toBe(0);
    expect(good.out).toContain(`Export holds: ${ids.length} entries`);
    const report = verifyJsonLinesExport(jsonl);
    // Four decisions written back to back: one run of consecutive links.
    expect(report).toMatchObject({ ok: true, entries: 4, unchained: 0, complete: true, problems: [] });
    expect(report.runs).toHaveLength(1);
    expect(BigInt(report.runs[0].toSeq) - BigInt(report.runs[0].fromSeq)).toBe(3n);

    // One byte of one decline reason changed ("-1" → "-2").
    const target = lines.findIndex((line) => line.includes('-1 is not a refund'));
    const tampered = lines.map((line, i) => (i === target ? line.replace('-1 is not', '-2 is not') : line)).join('\n');
    await writeFile(file, tampered);
    const bad = await verifyCli(file);
    expect(bad.code).toBe(1);
    const targetId = JSON.parse(lines[target]).id as string;
    expect(bad.out).toContain(`line ${target + 1} (entry ${targetId}`);
    expect(bad.out).toContain('content_changed');
    expect(verifyJsonLinesExport(tampered).problems).toEqual([expect.objectContaining({ line: target + 1, id: targetId, problem: 'content_changed' })]);
  }, 60_000);

  it('a forger who recomputes an entry’s own hashes is caught by the link to its neighbour; arguments are covered by the fingerprint', async () => {
    const jsonl = await text(auditJsonLinesStream(auditQuerySchema.parse({ format: 'jsonl', toolName: toolId }), db));
    const lines = jsonl.split('\n').filter(Boolean);
    const entries = lines.slice(1, -1).map((line) => JSON.parse(line));
    const [first, second] = [...entries].sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
    // Change the second link's content and rebuild its content hash and hash consistently.
    const forged = { ...second, reason: 'forged' };
    const { decisionContent } = await import('../../lib/audit/chain');
    forged.contentHash = contentHash(decisionContent({ ...forged, createdAt: new Date(forged.createdAt) }));
    forged.hash = linkHash(forged.prevHash, forged.contentHash);
    const withForged = lines.map((line) => (JSON.parse(line).id === second.id ? JSON.stringify(forged) : line)).join('\n');
    // On its own the forged line holds, but the link after it no longer follows it.
    const report = verifyJsonLinesExport(withForged);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.problem)).toEqual(['wrong_previous_hash']);
    expect(BigInt(report.problems[0].seq!)).toBe(BigInt(second.seq) + 1n);
    expect(first.hash).toBe(second.prevHash);

    // Args are not in the content text but in the fingerprint.
    const withArgs = lines.map((line) => (JSON.parse(line).id === first.id ? line.replace('"n":"n', '"n":"m') : line)).join('\n');
    expect(verifyJsonLinesExport(withArgs).problems).toEqual([expect.objectContaining({ id: first.id, problem: 'args_changed' })]);
    // A line that is not JSON any more is named by its number.
    const broken = lines.map((line, i) => (i === 2 ? line.slice(0, -1) : line)).join('\n');
    expect(verifyJsonLinesExport(broken).problems).toEqual([expect.objectContaining({ line: 3, problem: 'unreadable' })]);
  });

  it('the JSON Lines header names the chain head, and an export that holds it reaches the head', async () => {
    const jsonl = await text(auditJsonLinesStream(auditQuerySchema.parse({ format: 'jsonl', toolName: toolId }), db));
    const head = await db.auditChainHead.findUniqueOrThrow({ where: { id: 1 } });
    const report = verifyJsonLinesExport(jsonl);
    expect(report.head).toEqual({ seq: String(head.seq), hash: head.hash });
    // Nothing was written after the last decision of beforeAll (files run one at a time).
    expect(report.reachesHead).toBe(true);
    // The header's head hash changed: the last link no longer matches it.
    const forgedHead = jsonl.replace(head.hash, 'f'.repeat(64));
    expect(verifyJsonLinesExport(forgedHead).problems).toEqual([expect.objectContaining({ seq: String(head.seq), problem: 'head_mismatch' })]);
  });

  it('the CSV export verifies offline too; a changed readable cell or chain entry is named', async () => {
    const csv = await text(auditCsvStream(auditQuerySchema.parse({ format: 'csv', toolName: toolId }), db));
    const file = path.join(dir, 'export.csv');
    await writeFile(file, csv);
    const good = await verifyCli(file);
    expect(good.code, good.out).toBe(0);
    expect(verifyCsvExport(csv)).toMatchObject({ ok: true, entries: 4, complete: true });
    // The last line says where the export ends, for the verifier: a `#` comment line, not a row.
    expect(csv.split('\r\n').filter(Boolean).at(-1)).toBe('# End of export: 4 decisions');
    // The formula-looking reason is neutralised in its readable cell and still verifies.
    expect(csv).toContain(`"'=HYPERLINK(""x"")"`);

    const rows = csv.split('\r\n');
    const target = rows.findIndex((row) => row.includes('-1 is not a refund'));
    const targetId = ids[1];
    // The readable reason column (the first occurrence) changed, the chain entry left alone.
    const readable = rows.map((row, i) => (i === target ? row.replace('-1 is not', '-2 is not') : row)).join('\r\n');
    // Named by the file's line, as an editor shows it (rows is 0-based, the header is line 1).
    expect(verifyCsvExport(readable).problems).toEqual([expect.objectContaining({ line: target + 1, id: targetId, problem: 'column_changed', message: expect.stringMatching(new RegExp(`^Line ${target + 1}'s reason`)) })]);
    // The chain entry's reason changed (the last occurrence on the row).
    const entry = rows.map((row, i) => (i === target ? row.replace(/-1 is not(?!.*-1 is not)/, '-2 is not') : row)).join('\r\n');
    const report = verifyCsvExport(entry);
    expect(report.problems.map((p) => [p.id, p.problem])).toEqual([
      [targetId, 'column_changed'],
      [targetId, 'content_changed'],
    ]);
    await writeFile(file, entry);
    const bad = await verifyCli(file);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`entry ${targetId}`);
  }, 60_000);

  it('the CSV as a CSV reader reads it: a byte-order mark, only data rows with the header’s columns, names and emails beside the ids', async () => {
    const bytes = new Uint8Array(await new Response(auditCsvStream(auditQuerySchema.parse({ format: 'csv', toolName: toolId }), db)).arrayBuffer());
    // UTF-8 with a byte-order mark, so Excel (CJK, French locales) reads it as UTF-8.
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    // The file's text with its byte-order mark (Response.text() would drop it).
    const csv = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    expect(csv.startsWith('\uFEFFat,')).toBe(true);
    const { parse } = await import('csv-parse/sync');
    // As the docs say to read it: `#` starts a comment line (the end line).
    const records: Record<string, string>[] = parse(csv, { bom: true, columns: true, comment: '#', comment_no_infix: true, relax_column_count: false });
    expect(records.map((r) => r.id).sort()).toEqual([...ids].sort());
    const header = Object.keys(records[0]);
    expect(header.slice(0, 4)).toEqual(['at', 'actorId', 'actorName', 'actorEmail']);
    for (const record of records) {
      expect(Object.keys(record)).toEqual(header);
      expect(record.at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      // Read from the users table in the export's own statement: filled, not empty.
      expect(record).toMatchObject({ actorId: user.id, actorName: 'Ada Lövelace, 愛達', actorEmail: 'ada.export@example.test', requester: user.id, requesterName: 'Ada Lövelace, 愛達', requesterEmail: 'ada.export@example.test' });
    }
    // Read without the comment option, the end line is the only record of one cell; with `bom` the first column is `at`, not `\uFEFFat`.
    const plain: string[][] = parse(csv, { bom: true, relax_column_count: true });
    expect(plain[0][0]).toBe('at');
    expect(plain.filter((row) => row.length !== header.length)).toEqual([['# End of export: 4 decisions']]);
    // The offline checker holds it as exported; names and emails are covered by no hash, and the report says so.
    const report = verifyCsvExport(csv);
    expect(report).toMatchObject({ ok: true, entries: ids.length, complete: true });
    expect(report.notCovered?.columns).toEqual(expect.arrayContaining(['actorName', 'actorEmail', 'requesterName', 'requesterEmail']));
    // `npm run audit:verify` holds the file as downloaded, byte-order mark included.
    const file = path.join(dir, 'with-bom.csv');
    await writeFile(file, bytes);
    const cli = await verifyCli(file);
    expect(cli.code, cli.out).toBe(0);
    // An altered file is still caught: a changed reason, a removed row.
    expect(verifyCsvExport(csv.replace('-1 is not a refund', '-2 is not a refund')).ok).toBe(false);
    await writeFile(file, csv.replace('-1 is not a refund', '-2 is not a refund'));
    expect((await verifyCli(file)).code).toBe(1);
    const lines = csv.split('\r\n');
    expect(verifyCsvExport([...lines.slice(0, 1), ...lines.slice(2)].join('\r\n')).problems).toEqual([expect.objectContaining({ problem: 'truncated' })]);
  });

  it('a file cut short, or with entries taken out or added, is reported as truncated', async () => {
    const jsonl = await text(auditJsonLinesStream(auditQuerySchema.parse({ format: 'jsonl', toolName: toolId }), db));
    const lines = jsonl.split('\n').filter(Boolean);
    // Cut off at a line end (a broken download): no end line.
    const cut = lines.slice(0, -2).join('\n');
    expect(verifyJsonLinesExport(cut)).toMatchObject({ ok: false, complete: false, problems: [expect.objectContaining({ problem: 'truncated', line: lines.length - 1 })] });
    const file = path.join(dir, 'cut.jsonl');
    await writeFile(file, cut);
    const cli = await verifyCli(file);
    expect(cli.code).toBe(1);
    expect(cli.out).toContain('truncated. The file has no end line');
    // One entry taken out, the end line kept: its count no longer matches.
    const removed = [...lines.slice(0, 2), ...lines.slice(3)].join('\n');
    expect(verifyJsonLinesExport(removed).problems).toEqual([expect.objectContaining({ problem: 'truncated', line: lines.length - 1 })]);
    // A line after the end line.
    const appended = [...lines, lines[1]].join('\n');
    expect(verifyJsonLinesExport(appended).problems).toEqual([expect.objectContaining({ problem: 'unreadable', line: lines.length + 1 })]);
    // The CSV without its end line.
    const csv = await text(auditCsvStream(auditQuerySchema.parse({ format: 'csv', toolName: toolId }), db));
    const rows = csv.split('\r\n').filter(Boolean);
    expect(rows.at(-1)).toMatch(/^# /);
    expect(verifyCsvExport(rows.slice(0, -1).join('\r\n'))).toMatchObject({ ok: false, complete: false, problems: [expect.objectContaining({ problem: 'truncated' })] });
    // A format 1 file (written before end lines existed) has none to check: it holds, but cannot say it is complete.
    const v1 = lines.slice(0, -1).join('\n').replace('countersign-audit-export/2', 'countersign-audit-export/1').replace('"scope":"decisions","unchained":0,', '');
    const v1Report = verifyJsonLinesExport(v1);
    expect(v1Report).toMatchObject({ ok: true, complete: false });
    expect(describeExportReport(v1Report).join('\n')).toContain('whether something was cut off its end cannot be told');
    // Without its header (or with nothing in it), a file is not a whole export.
    expect(verifyJsonLinesExport(lines.slice(1).join('\n')).problems).toEqual([expect.objectContaining({ line: 1, problem: 'unreadable' })]);
    expect(verifyJsonLinesExport('').problems).toEqual([expect.objectContaining({ line: 1, problem: 'unreadable' })]);
    expect(verifyJsonLinesExport([lines[1], lines[0], ...lines.slice(2)].join('\n')).ok).toBe(false);
  });

  it('link numbers, which no hash covers, are checked against the neighbours and the head', async () => {
    const jsonl = await text(auditJsonLinesStream(auditQuerySchema.parse({ format: 'jsonl', toolName: toolId }), db));
    const lines = jsonl.split('\n').filter(Boolean);
    const entries = lines.slice(1, -1).map((line) => JSON.parse(line));
    const [, second] = [...entries].sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
    const renumber = (to: string) => lines.map((line) => (line.includes(`"id":"${second.id}"`) ? line.replace(`"seq":"${second.seq}"`, `"seq":"${to}"`) : line)).join('\n');
    // Moved far away, or onto an earlier number: its neighbours' hashes say where it belongs.
    for (const to of [String(BigInt(second.seq) + 100n), '3']) {
      const report = verifyJsonLinesExport(renumber(to));
      expect(report.ok, to).toBe(false);
      expect(report.problems.map((p) => p.problem), to).toContain('wrong_link_number');
    }
    // Past the head the header names.
    const head = JSON.parse(lines[0]).head.seq as string;
    const last = entries.find((e) => e.seq === head)!;
    const past = lines.map((line) => (line.includes(`"id":"${last.id}"`) ? line.replace(`"seq":"${head}"`, `"seq":"${BigInt(head) + 1n}"`) : line)).join('\n');
    expect(verifyJsonLinesExport(past).problems).toContainEqual(expect.objectContaining({ problem: 'wrong_link_number', message: expect.stringContaining('past the chain head') }));
  });

  it('what no hash covers cannot be used to slip an entry in: a removed link number, an entry without one, a repeated field, another kind of entry, an added column', async () => {
    const jsonl = await text(auditJsonLinesStream(auditQuerySchema.parse({ format: 'jsonl', toolName: toolId }), db));
    const lines = jsonl.split('\n').filter(Boolean);
    expect(JSON.parse(lines[0]).unchained).toBe(0);
    const entry = JSON.parse(lines[1]);
    // The link number removed and the decision changed: its hashes are still there.
    const unnumbered = lines.map((line, i) => (i === 1 ? JSON.stringify({ ...entry, seq: null, reason: 'changed' }) : line)).join('\n');
    expect(verifyJsonLinesExport(unnumbered).problems.map((p) => p.problem)).toContain('wrong_link_number');
    // A made-up entry with no link at all: the database held none older than the chain.
    const madeUp = JSON.stringify({ ...entry, id: 'made-up', seq: null, contentHash: null, prevHash: null, hash: null });
    const added = [...lines.slice(0, -1), madeUp, JSON.stringify({ entry: 'end', entries: ids.length + 1 })].join('\n');
    expect(verifyJsonLinesExport(added).problems).toEqual([expect.objectContaining({ problem: 'unreadable', line: 1, message: expect.stringContaining('entries without a link') })]);
    // A field written twice: a reader sees the first, JSON.parse keeps the last.
    const doubled = lines.map((line, i) => (i === 1 ? line.replace('{"entry":"decision",', '{"entry":"decision","reason":"all fine",') : line)).join('\n');
    expect(verifyJsonLinesExport(doubled).problems).toEqual([expect.objectContaining({ line: 2, problem: 'unreadable' })]);
    // An admin action in a decisions export.
    const event = await recordAuditEvent({ action: 'auth.signed_in', actor: user, target: { type: 'user', id: user.id }, details: {} });
    const { eventLine } = await import('../../lib/audit/export');
    const foreign = [...lines.slice(0, -1), JSON.stringify(eventLine(await db.auditEvent.findUniqueOrThrow({ where: { id: event } }))), JSON.stringify({ entry: 'end', entries: ids.length + 1 })].join('\n');
    expect(verifyJsonLinesExport(foreign).problems.map((p) => p.message)).toContainEqual(expect.stringContaining('which a decisions export does not hold'));
    // A head number that is not a number: the header is unreadable, no crash.
    expect(verifyJsonLinesExport(jsonl.replace(/"head":\{"seq":"\d+"/, '"head":{"seq":"nine"')).problems[0]).toMatchObject({ line: 1, problem: 'unreadable' });
    // A byte-order mark an editor added is not a problem.
    expect(verifyJsonLinesExport(`\uFEFF${jsonl}`).ok).toBe(true);
    // A CSV with a column the export does not write.
    const csv = await text(auditCsvStream(auditQuerySchema.parse({ format: 'csv', toolName: toolId }), db));
    expect(verifyCsvExport(csv.replace('at,actorId,', 'at,note,actorId,')).ok).toBe(false);
    expect(verifyCsvExport(`\uFEFF${csv}`).ok).toBe(true);
  });

  it('a CSV re-saved with LF line ends still verifies; its end line must count its rows', async () => {
    const csv = await text(auditCsvStream(auditQuerySchema.parse({ format: 'csv', toolName: toolId }), db));
    expect(verifyCsvExport(csv.replaceAll('\r\n', '\n'))).toMatchObject({ ok: true, complete: true, entries: 4 });
    expect(verifyCsvExport(`${csv}\n`)).toMatchObject({ ok: true, complete: true });
    const recounted = csv.replace('# End of export: 4 decisions', '# End of export: 12 decisions');
    expect(verifyCsvExport(recounted).problems).toEqual([expect.objectContaining({ problem: 'truncated' })]);
    // Cut in the middle of a row: named as such, and not said to be "cannot be told".
    const cut = verifyCsvExport(csv.slice(0, csv.length - 200));
    expect(cut.ok).toBe(false);
    expect(describeExportReport(cut).join('\n')).toContain('cut off in the middle of a row');
    expect(describeExportReport(cut).join('\n')).not.toContain('cannot be told');
  });

  it('an export whose reading fails part-way errors instead of ending: what arrived has no end line', async () => {
    let pages = 0;
    const stream = pagedExportStream<string>({
      header: async () => '{"entry":"export"}\n',
      page: async (cursor) => {
        pages += 1;
        if (cursor) throw new Error('connection lost');
        return { entries: ['a', 'b'], nextCursor: 'after-b' };
      },
      rows: (entries) => entries.map((e) => `${e}\n`).join(''),
      footer: (n) => `end ${n}\n`,
    });
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let received = '';
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          received += decoder.decode(value);
        }
      })(),
    ).rejects.toThrow('connection lost');
    expect(pages).toBe(2);
    expect(received).toBe('{"entry":"export"}\na\nb\n');
  });

  it('the whole-chain export is one run from the genesis hash to the head, decisions and admin actions together', async () => {
    // A database of its own: other files tamper with the shared chain on purpose (audit-chain.test.ts).
    const scratch = await createScratchDatabase('audit_chain_export');
    const chainDb = createPrismaClient(scratch.url, { maxConnections: 2 });
    try {
      const chainAgent = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'chain', model: new ScriptedModel(), tools: [gated], store: new PrismaAgentStore(chainDb) });
      for (let i = 0; i < 9; i++) {
        const run = await chainAgent.generate(`/tool ${toolId} ${JSON.stringify({ n: `c${i}` })}`, { threadId: newThreadId(), resourceId: user.id });
        await chainAgent.approveToolCallGenerate({ runId: run.runId, toolCallId: run.suspendedToolCalls[0].toolCallId, actor: user });
        if (i % 2 === 0) await recordAuditEvent({ action: 'auth.signed_in', actor: user, target: { type: 'user', id: user.id }, details: { i } }, chainDb);
      }
      const live = await verifyAuditChain(chainDb);
      expect(live).toMatchObject({ ok: true, checked: 14, head: { seq: '14' } });
      // Pages of 3 links: several pages, each merging both tables.
      const jsonl = await text(chainJsonLinesStream(chainDb, { pageSize: 3 }));
      const lines = jsonl.split('\n').filter(Boolean).map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({ entry: 'export', filters: {}, head: live.head });
      expect(lines.at(-1)).toEqual({ entry: 'end', entries: 14 });
      const links = lines.slice(1, -1);
      expect(links.map((l) => Number(l.seq))).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
      expect(links.filter((l) => l.entry === 'event')).toHaveLength(5);
      const report = verifyJsonLinesExport(jsonl);
      expect(report).toMatchObject({ ok: true, startsAtGenesis: true, reachesHead: true, complete: true, runs: [{ fromSeq: '1', toSeq: '14' }] });
      expect(describeExportReport(report).join('\n')).toContain('the file is the whole chain');
      // The decisions export of the same database has gaps where the admin actions are.
      const decisionsOnly = verifyJsonLinesExport(await text(auditJsonLinesStream(auditQuerySchema.parse({ format: 'jsonl' }), chainDb)));
      expect(decisionsOnly).toMatchObject({ ok: true, complete: true });
      expect(decisionsOnly.runs.length).toBeGreaterThan(1);
      expect(describeExportReport(decisionsOnly).join('\n')).not.toContain('the file is the whole chain');
      // A whole-chain file is held to being whole: without its last link, or one in the middle (end
      // line recounted each time), or with two lines swapped, it fails.
      const raw = jsonl.split('\n').filter(Boolean);
      const end13 = JSON.stringify({ entry: 'end', entries: 13 });
      const short = verifyJsonLinesExport([...raw.slice(0, -2), end13].join('\n'));
      expect(short).toMatchObject({ ok: false, reachesHead: false, problems: [expect.objectContaining({ problem: 'missing_link', line: 1 })] });
      expect(describeExportReport(short).join('\n')).not.toContain('the file is the whole chain');
      const holed = verifyJsonLinesExport([...raw.slice(0, 6), ...raw.slice(7, -1), end13].join('\n'));
      expect(holed.problems.map((p) => p.problem)).toEqual(['missing_link']);
      const swapped = verifyJsonLinesExport([raw[0], raw[2], raw[1], ...raw.slice(3)].join('\n'));
      expect(swapped.problems.map((p) => p.problem)).toEqual(['out_of_order']);
      expect(describeExportReport(report).join('\n')).toContain('Header: chain export, no filters');
    } finally {
      await chainDb.$disconnect();
      await scratch.drop();
    }
  }, 60_000);

  it('audit:verify exits 2 when it cannot check: a bad option, a file that cannot be read', async () => {
    const run = async (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/audit-verify.ts', ...args]).then(
        () => ({ code: 0, out: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, out: error.stderr }),
      );
    expect(await run(['--fil', 'x.jsonl'])).toMatchObject({ code: 2, out: expect.stringContaining('Usage: npm run audit:verify') });
    expect(await run(['--file', path.join(dir, 'no-such-file.jsonl')])).toMatchObject({ code: 2, out: expect.stringContaining('Cannot read') });
  }, 60_000);

  // Skipped when the tests run against an external database (no embedded server of their own).
  it.skipIf(!existsSync('.data/pg-test/postmaster.pid'))('scripts find an embedded PostgreSQL another process runs on a folder, and no server where it has stopped', async () => {
    // The tests' own embedded server holds .data/pg-test.
    const url = runningEmbeddedPostgres('.data/pg-test');
    expect(url).not.toBeNull();
    expect(new URL(url!).port).toBe(new URL(databaseUrl()).port);
    const folder = await mkdtemp(path.join(tmpdir(), 'pg-gone-'));
    expect(runningEmbeddedPostgres(folder)).toBeNull();
    // A postmaster.pid left by a server that was killed: its process is gone.
    await writeFile(path.join(folder, 'postmaster.pid'), `2147483646\n${folder}\n0\n54999\n`);
    expect(runningEmbeddedPostgres(folder)).toBeNull();
  });

  it('audit events (admin actions) are entries the verifier checks the same way', async () => {
    const id = await recordAuditEvent({ action: 'auth.signed_in', actor: user, target: { type: 'user', id: user.id }, details: { via: 'export test' } });
    const row = await db.auditEvent.findUniqueOrThrow({ where: { id } });
    const { eventLine } = await import('../../lib/audit/export');
    const line = JSON.stringify(eventLine(row));
    expect(contentHash(eventContent(row))).toBe(row.contentHash);
    // A file of this one action: the header as the admin-actions export writes it, and the end line.
    const header = JSON.stringify({ entry: 'export', format: 'countersign-audit-export/2', exportedAt: new Date().toISOString(), scope: 'actions', unchained: 0, filters: {}, head: { seq: String(row.chainSeq), hash: row.hash } });
    const file = (entry: string) => [header, entry, JSON.stringify({ entry: 'end', entries: 1 })].join('\n');
    expect(verifyJsonLinesExport(file(line))).toMatchObject({ ok: true, entries: 1, complete: true, reachesHead: true });
    expect(verifyJsonLinesExport(file(line.replace('export test', 'expert test'))).problems).toEqual([expect.objectContaining({ id, problem: 'content_changed' })]);
  });

  // Last in the file: it writes decisions (of its own tool), which moves the chain head past the earlier tests' files.
  it('a CSV row’s tool name, run and call id are compared with the entry; a sub-agent’s row shows its top-level run, which is named as not covered', async () => {
    const subToolId = `${toolId}-sub`;
    const subTool = createTool({ id: subToolId, description: 'needs approval', inputSchema: z.object({ n: z.string() }), requireApproval: true, execute: ({ n }) => ({ ok: n }) });
    const store = new PrismaAgentStore(db);
    const sub = new Agent({ id: 'export-sub', name: 'Sub', instructions: 'sub', model: new ScriptedModel(), tools: [subTool], store });
    const top = new Agent({ id: 'export-top', name: 'Top', instructions: 'top', model: new ScriptedModel(), tools: [subTool], agents: { sub }, store });
    // One call of the top-level agent itself, one of its sub-agent's.
    for (const prompt of [`/tool ${subToolId} {"n":"top"}`, `/tool agent-sub ${JSON.stringify({ prompt: `/tool ${subToolId} {"n":"below"}` })}`]) {
      const run = await top.generate(prompt, { threadId: newThreadId(), resourceId: user.id });
      expect(run.finishReason).toBe('suspended');
      await top.approveToolCallGenerate({ runId: run.runId, toolCallId: run.suspendedToolCalls[0].toolCallId, actor: user });
    }
    const csv = await text(auditCsvStream(auditQuerySchema.parse({ format: 'csv', toolName: subToolId }), db));
    // The rows as the export wrote them: the sub-agent's shows the top-level run and the qualified call id.
    const rows: Record<string, string>[] = (await import('csv-parse/sync')).parse(csv, { bom: true, columns: true, comment: '#', comment_no_infix: true, record_delimiter: ['\r\n', '\n'] });
    const [below, own] = [rows.find((row) => row.toolCallId.includes('~'))!, rows.find((row) => row.id && !row.toolCallId.includes('~'))!];
    const belowEntry = JSON.parse(below.chainEntry) as { runId: string; toolCallId: string };
    const ownEntry = JSON.parse(own.chainEntry) as { runId: string; toolCallId: string };
    expect(below.runId).not.toBe(belowEntry.runId);
    expect(below.toolCallId.endsWith(`~${belowEntry.toolCallId}`)).toBe(true);
    expect([own.runId, own.toolCallId]).toEqual([ownEntry.runId, ownEntry.toolCallId]);

    // Each readable cell edited on its own, as an auditor's copy might be: named by line, entry and column.
    const { stringify } = await import('csv-stringify/sync');
    const edit = (row: Record<string, string>, cells: Record<string, string>) =>
      stringify([Object.keys(rows[0]), ...rows.map((r) => Object.values(r === row ? { ...r, ...cells } : r))], { record_delimiter: 'windows' }) +
      `# End of export: ${rows.length} decisions\r\n`;
    const line = (row: Record<string, string>) => rows.indexOf(row) + 2;
    for (const [row, cells, column] of [
      [own, { toolName: 'delete-everything' }, 'toolName'],
      [below, { toolName: 'delete-everything' }, 'toolName'],
      [own, { runId: below.runId }, 'runId'],
      [own, { toolCallId: 'call-forged' }, 'toolCallId'],
      [below, { toolCallId: below.toolCallId.replace(/[^~]+$/, 'call-forged') }, 'toolCallId'],
      // A sub-agent's call passed off as the top-level run's own: its run would be the entry's.
      [below, { toolCallId: belowEntry.toolCallId }, 'runId'],
    ] as const) {
      const edited = verifyCsvExport(edit(row, cells));
      expect(edited.problems, JSON.stringify(cells)).toEqual([
        expect.objectContaining({ line: line(row), id: row.id, problem: 'column_changed', message: `Line ${line(row)}'s ${column} does not match the entry its hash covers.` }),
      ]);
    }

    // The file as exported holds, and says what it shows that no hash covers.
    const report = verifyCsvExport(csv);
    expect(report).toMatchObject({ ok: true, entries: 2, complete: true, notCovered: { columns: ['actorName', 'actorEmail', 'agentId', 'requester', 'requesterName', 'requesterEmail', 'why'], subAgentRows: 1 } });
    expect(describeExportReport(report).join('\n')).toContain('in 1 row of a sub-agent\'s call, runId (the top-level run)');
    const file = path.join(dir, 'sub-agent.csv');
    await writeFile(file, csv);
    const cli = await verifyCli(file);
    expect(cli.code, cli.out).toBe(0);
    expect(cli.out).toContain('Not covered by any hash');
  }, 60_000);
});
