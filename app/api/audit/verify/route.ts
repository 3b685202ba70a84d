import { requireActor } from '@/lib/auth/session';
import { verifyAuditChain } from '@/lib/audit/verify';
import { withErrors } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';
import { otherMethods } from '@/lib/http/methods';

/**
 * GET /api/audit/verify (admins): recomputes the audit hash chain from the rows as they are now →
 * `{ ok, checked, unchained, head: { seq, hash }, firstBroken: { table, id, seq, problem, message } | null }`
 * (200 either way: a broken chain is a finding, not a failed request).
 * Errors: 401, 403 FORBIDDEN / INSUFFICIENT_SCOPE (keys need audit:read).
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['admin']);
  return Response.json(await verifyAuditChain(prisma()));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
