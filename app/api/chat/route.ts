import { chatRateLimit, chatRequestSchema } from './schema';
import { requireActor, requireScope } from '@/lib/auth/session';
import { newUserText, runChatTurn } from '@/lib/chat/turn';
import { parseJson, readBodyText, withErrors } from '@/lib/http/errors';
import { withIdempotency } from '@/lib/http/idempotency';
import { readChatTarget } from '@/lib/runs/access';
import { otherMethods } from '@/lib/http/methods';

/** POST /api/chat: a new user message, or a `decision` / `resume` that continues a run (lib/chat/turn.ts). */
export const POST = withErrors(async (request: Request) => {
  const actor = await requireActor(request);
  const raw = await readBodyText(request);
  const body = parseJson(raw, chatRequestSchema);
  // A decision or an answer sent through the chat needs the same scope as the decision routes.
  if (body.decision || body.resume) requireScope(actor, 'decisions:write');
  const text = body.decision || body.resume ? null : newUserText(body);
  // Counted once the request is well-formed: refusing garbage is cheap and must change nothing. The
  // thread, and the run a decision or an answer names, are read in the same statement; their rules
  // are applied in runChatTurn, as part of the request.
  const runId = body.decision?.runId ?? body.resume?.runId ?? null;
  const target = await readChatTarget(body.id, runId, { key: `chat:${actor.id}`, ...chatRateLimit() });
  return withIdempotency({ request, actorId: actor.id, body: raw }, () => runChatTurn(body, text, actor, target));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
