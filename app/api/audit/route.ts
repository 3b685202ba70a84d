import { requireActor } from '@/lib/auth/session';
import { auditCsvStream, auditJsonLinesStream, auditQuerySchema, listAudit } from '@/lib/audit/queries';
import { withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

/**
 * The decision audit log (admins): JSON pages, or with `format=csv` / `format=jsonl` the whole
 * filtered log as one streamed download with each entry's hash chain link (no row cap; `limit` and
 * `cursor` apply to JSON only), checked offline by `npm run audit:verify -- --file <download>`.
 * Read-only: there is no write path.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  const query = auditQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  if (query.format === 'csv') {
    return new Response(auditCsvStream(query), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="countersign-audit.csv"',
        'cache-control': 'no-store',
      },
    });
  }
  if (query.format === 'jsonl') {
    return new Response(auditJsonLinesStream(query), {
      headers: {
        'content-type': 'application/jsonl; charset=utf-8',
        'content-disposition': 'attachment; filename="countersign-audit.jsonl"',
        'cache-control': 'no-store',
      },
    });
  }
  const page = await listAudit(query);
  return Response.json({ ...page, entries: page.entries.map(({ chained: _chained, ...entry }) => entry) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
