import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { decisionLine, eventLine, exportEndLine } from './export';
import { EXPORT_PAGE, exportHeader, pagedExportStream } from './stream';

/**
 * The whole audit hash chain as one JSON Lines export: every link, decisions and audit events
 * together, oldest first, from link 1 to the chain head read when the export starts (links added
 * while it streams are left for the next export). Its header has no filters. The decisions export
 * (`GET /api/audit?format=jsonl`) and the admin-actions export each hold one kind of entry, so their
 * runs have gaps where the other kind's links are; this file is one run from the genesis hash to the
 * head, which `npm run audit:verify -- --file` reports as "the file is the whole chain". Entries older
 * than the chain (no link) are not in it.
 *
 * Reads one page of links per pull (by link number, in each table's chain_seq index).
 *
 * @param options.pageSize links per page (default EXPORT_PAGE, 500)
 * @returns a byte stream for a Response body (`application/jsonl`)
 */
export function chainJsonLinesStream(db: PrismaClient = prisma(), options: { pageSize?: number } = {}): ReadableStream<Uint8Array> {
  const pageSize = options.pageSize ?? EXPORT_PAGE;
  let headSeq = 0n;
  return pagedExportStream({
    async header() {
      const header = await exportHeader('chain', {}, db);
      headSeq = header.headSeq;
      return header.line;
    },
    async page(cursor) {
      const range = { gt: cursor === undefined ? 0n : BigInt(cursor), lte: headSeq };
      const [decisions, events] = await Promise.all([
        db.decision.findMany({ where: { chainSeq: range }, orderBy: { chainSeq: 'asc' }, take: pageSize }),
        db.auditEvent.findMany({ where: { chainSeq: range }, orderBy: { chainSeq: 'asc' }, take: pageSize }),
      ]);
      const links = [
        ...decisions.map((row) => ({ seq: row.chainSeq!, line: decisionLine(row) })),
        ...events.map((row) => ({ seq: row.chainSeq!, line: eventLine(row) })),
      ].sort((a, b) => (a.seq < b.seq ? -1 : 1));
      const entries = links.slice(0, pageSize);
      // Either table may hold more after its last row read here, or the merge held more than a page.
      const more = links.length > pageSize || decisions.length === pageSize || events.length === pageSize;
      return { entries, nextCursor: more && entries.length > 0 ? String(entries.at(-1)!.seq) : null };
    },
    rows: (entries) => entries.map((entry) => `${JSON.stringify(entry.line)}\n`).join(''),
    footer: exportEndLine,
  });
}
