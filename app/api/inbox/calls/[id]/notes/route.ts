import { requireActor } from '@/lib/auth/session';
import { readJson, withErrors } from '@/lib/http/errors';
import { addNote, noteSchema } from '@/lib/inbox/notes';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ id: string }> };

/**
 * POST /api/inbox/calls/{id}/notes `{ kind: 'comment' | 'question', body }` — a note on a pending
 * call, or a question sent into the requester's chat, without deciding (reviewers, admins). 201.
 */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request, ['reviewer', 'admin']);
  const body = await readJson(request, noteSchema);
  const { id } = await params;
  return Response.json(await addNote({ ...body, pendingCallId: id.slice(0, 100), actor }), { status: 201 });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
