import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { waitingForMe } from '@/lib/inbox/count';
import { otherMethods } from '@/lib/http/methods';

/** How many calls wait for the signed-in reviewer, and the newest (the badge, tab title and browser notifications). */
export const GET = withErrors(async (request: Request) => {
  const actor = await requireActor(request, ['reviewer', 'admin']);
  return Response.json(await waitingForMe(actor), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
