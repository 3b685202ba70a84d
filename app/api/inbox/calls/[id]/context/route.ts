import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { loadCallContext } from '@/lib/inbox/context';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ id: string }> };

/** GET /api/inbox/calls/{id}/context — the conversation and business facts beside one call (reviewers, admins). */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  await requireActor(request, ['reviewer', 'admin']);
  const { id } = await params;
  return Response.json(await loadCallContext({ pendingCallId: id.slice(0, 100) }));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
