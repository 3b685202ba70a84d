import 'server-only';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { GENESIS } from './chain';
import { EXPORT_FORMAT, type ExportScope, type HeaderLine } from './export';

/** Rows read per statement while streaming an export. */
export const EXPORT_PAGE = 500;

/**
 * An export as a byte stream: the header, then one keyset page per pull, each read only when the
 * client has taken the previous one (backpressure), so memory stays flat and there is no cap; then
 * the footer, written only once the last page was read. When a page fails, the stream errors
 * instead: the response breaks off without its footer, and the verifier reports the file as cut
 * short (`truncated`) — the status, 200, went out with the first byte.
 *
 * @param input.header the first text (e.g. the CSV header or the JSON Lines header line)
 * @param input.page reads the page after `cursor` (undefined: the first), EXPORT_PAGE entries
 * @param input.rows the text of one page's entries
 * @param input.footer the last text, given how many entries were written (the end line or row)
 */
export function pagedExportStream<E>(input: {
  header: () => Promise<string>;
  page: (cursor: string | undefined) => Promise<{ entries: E[]; nextCursor: string | null }>;
  rows: (entries: E[]) => string;
  footer: (entries: number) => string;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let started = false;
  let written = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(encoder.encode(await input.header()));
        }
        const page = await input.page(cursor);
        if (page.entries.length > 0) controller.enqueue(encoder.encode(input.rows(page.entries)));
        written += page.entries.length;
        if (page.nextCursor) {
          cursor = page.nextCursor;
        } else {
          controller.enqueue(encoder.encode(input.footer(written)));
          controller.close();
        }
      },
    },
    { highWaterMark: 1 },
  );
}

/**
 * The JSON Lines export's header line (with its newline): format, time, what the export holds
 * (`scope`), the filters (without paging and format), and the audit chain's head when the export
 * started, so a verifier can tell whether the export reaches the head.
 * @param scope `decisions` (the audit log), `actions` (administrative actions) or `chain` (every link)
 */
export async function exportHeaderLine(scope: ExportScope, query: Record<string, unknown>, db: PrismaClient): Promise<string> {
  return (await exportHeader(scope, query, db)).line;
}

/**
 * exportHeaderLine's line, and the head it names (for an export that stops at that head).
 * @returns `line` (with its newline) and `headSeq`, the head's link number (0 before the first link)
 */
export async function exportHeader(scope: ExportScope, query: Record<string, unknown>, db: PrismaClient): Promise<{ line: string; headSeq: bigint }> {
  const [head, legacyDecisions, legacyEvents] = await Promise.all([
    db.auditChainHead.findUnique({ where: { id: 1 } }),
    db.decision.count({ where: { chainSeq: null } }),
    db.auditEvent.count({ where: { chainSeq: null } }),
  ]);
  const { limit: _limit, cursor: _cursor, format: _format, ...filters } = query;
  const header: HeaderLine = {
    entry: 'export',
    format: EXPORT_FORMAT,
    exportedAt: new Date().toISOString(),
    scope,
    unchained: legacyDecisions + legacyEvents,
    filters: JSON.parse(JSON.stringify(filters)) as Record<string, unknown>,
    head: { seq: String(head?.seq ?? 0n), hash: head?.hash ?? GENESIS },
  };
  return { line: `${JSON.stringify(header)}\n`, headSeq: head?.seq ?? 0n };
}
