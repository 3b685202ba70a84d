import { requireActor } from '@/lib/auth/session';
import { readJson, withErrors } from '@/lib/http/errors';
import { assignCall, assignmentSchema } from '@/lib/inbox/assignment';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ id: string }> };

/** POST /api/inbox/calls/{id}/assignment `{ assignee, expected? }` — claim, release or assign a pending call (reviewers, admins). */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request, ['reviewer', 'admin']);
  const body = await readJson(request, assignmentSchema);
  const { id } = await params;
  return Response.json(await assignCall({ ...body, pendingCallId: id.slice(0, 100), actor }));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
