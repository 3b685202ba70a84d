import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { inboxQuerySchema, listInbox } from '@/lib/inbox/queries';
import { otherMethods } from '@/lib/http/methods';

export const GET = withErrors(async (request: Request) => {
  const actor = await requireActor(request, ['reviewer', 'admin']);
  const query = inboxQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  return Response.json(await listInbox(query, undefined, actor));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
