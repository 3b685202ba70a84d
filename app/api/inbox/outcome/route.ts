import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';
import { callOutcome, callOutcomeQuerySchema } from '@/lib/inbox/outcome';

/**
 * GET /api/inbox/outcome?runId=…&toolCallId=… — what became of a call (reviewers, admins): its
 * status, the latest decision and who made it, and the tool's result (lib/inbox/outcome.ts).
 * 400 BAD_REQUEST for a missing or unknown parameter, 404 NOT_FOUND for no such call.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['reviewer', 'admin']);
  const query = callOutcomeQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  return Response.json(await callOutcome(query));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
