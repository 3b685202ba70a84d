import { requireActor } from '@/lib/auth/session';
import { chainJsonLinesStream } from '@/lib/audit/chain-export';
import { ApiError, withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/audit/chain (admins): the whole audit hash chain as one JSON Lines download — the export
 * header (no filters, the chain head), every link oldest first (decisions and admin actions), and the
 * end line — which `npm run audit:verify -- --file` checks offline as one run from the genesis hash to
 * the head. Errors: 400 BAD_REQUEST (a `format` other than `jsonl`), 401, 403 FORBIDDEN /
 * INSUFFICIENT_SCOPE (keys need audit:read).
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  const format = new URL(request.url).searchParams.get('format');
  if (format !== null && format !== 'jsonl') throw new ApiError(400, 'BAD_REQUEST', 'The whole chain is exported as JSON Lines only (format=jsonl, or no format).');
  return new Response(chainJsonLinesStream(), {
    headers: {
      'content-type': 'application/jsonl; charset=utf-8',
      'content-disposition': 'attachment; filename="countersign-audit-chain.jsonl"',
      'cache-control': 'no-store',
    },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
