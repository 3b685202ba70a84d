import { decisionSchema } from './schema';
import { requireActor } from '@/lib/auth/session';
import { continueRun, uiStreamResponse } from '@/lib/chat/continue';
import { parseJson, readBodyText, withErrors } from '@/lib/http/errors';
import { withIdempotency } from '@/lib/http/idempotency';

type Params = { params: Promise<{ runId: string; toolCallId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const { runId, toolCallId } = await params;
  // Any signed-in person; an end user only reaches their own runs (continueRun), four-eyes is the runtime's.
  const actor = await requireActor(request);
  const text = await readBodyText(request);
  return withIdempotency({ request, actorId: actor.id, body: text }, async () => {
    const body = parseJson(text, decisionSchema);
    return uiStreamResponse(await continueRun({ type: 'decision', runId, toolCallId, ...body, actor, rateLimit: 'runs' }));
  });
});
