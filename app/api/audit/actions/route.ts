import { requireActor } from '@/lib/auth/session';
import { adminActionsJsonLinesStream, adminActionsQuerySchema, listAdminActions } from '@/lib/audit/admin-actions';
import { withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

/**
 * Administrative actions (admins): policy edits, user and role changes, API key creation and
 * revocation, sign-up settings, sign-ins — `200 { entries, nextCursor }`, newest first, filtered by
 * `actor` (part of a name or email), `action` (e.g. `policy.changed`, or a group: `policy`),
 * `from`, `to`; `format=jsonl` streams every match with the hash chain (no cap), checked offline by
 * `npm run audit:verify -- --file`. Errors: 400 BAD_REQUEST / INVALID_CURSOR, 401, 403 FORBIDDEN /
 * INSUFFICIENT_SCOPE (keys need audit:read).
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  const query = adminActionsQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  if (query.format === 'jsonl') {
    return new Response(adminActionsJsonLinesStream(query), {
      headers: {
        'content-type': 'application/jsonl; charset=utf-8',
        'content-disposition': 'attachment; filename="countersign-admin-actions.jsonl"',
        'cache-control': 'no-store',
      },
    });
  }
  const page = await listAdminActions(query);
  return Response.json({ ...page, entries: page.entries.map(({ chained: _chained, ...entry }) => entry) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
