import { requireActor } from '@/lib/auth/session';
import { chainJsonLinesStream } from '@/lib/audit/chain-export';
import { withErrors } from '@/lib/http/errors';

/**
 * GET /api/audit/chain (admins): the whole audit hash chain as one JSON Lines download — the export
 * header (no filters, the chain head), every link oldest first (decisions and admin actions), and the
 * end line — which `npm run audit:verify -- --file` checks offline as one run from the genesis hash to
 * the head. Errors: 401, 403 FORBIDDEN / INSUFFICIENT_SCOPE (keys need audit:read).
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  return new Response(chainJsonLinesStream(), {
    headers: {
      'content-type': 'application/jsonl; charset=utf-8',
      'content-disposition': 'attachment; filename="countersign-audit-chain.jsonl"',
      'cache-control': 'no-store',
    },
  });
});
