import { requireActor } from '@/lib/auth/session';
import { auditCsvStream, auditQuerySchema, listAudit } from '@/lib/audit/queries';
import { withErrors } from '@/lib/http/errors';

/**
 * The decision audit log (admins): JSON pages, or with `format=csv` the whole filtered log as one
 * streamed CSV download (no row cap; `limit` and `cursor` apply to JSON only). Read-only: there is
 * no write path.
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
  return Response.json(await listAudit(query));
});
