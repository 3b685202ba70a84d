import { requireActor } from '@/lib/auth/session';
import { auditCsv, auditQuerySchema, listAudit } from '@/lib/audit/queries';
import { withErrors } from '@/lib/http/errors';

/** The decision audit log (admins): JSON, or CSV with `format=csv`. Read-only: there is no write path. */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  const query = auditQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const page = await listAudit(query);
  if (query.format === 'csv') {
    return new Response(auditCsv(page.entries), {
      headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="countersign-audit.csv"' },
    });
  }
  return Response.json(page);
});
