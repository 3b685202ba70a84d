import { decisionSchema } from './schema';
import { currentReviewer } from '@/lib/auth/demo';
import { continueRun, uiStreamResponse } from '@/lib/chat/continue';
import { parseJson, readBodyText, withErrors } from '@/lib/http/errors';
import { withIdempotency } from '@/lib/http/idempotency';

type Params = { params: Promise<{ runId: string; toolCallId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const { runId, toolCallId } = await params;
  const actor = currentReviewer();
  const text = await readBodyText(request);
  return withIdempotency({ request, actorId: actor.id, body: text }, async () => {
    const body = parseJson(text, decisionSchema);
    return uiStreamResponse(await continueRun({ type: 'decision', runId, toolCallId, ...body, actor }));
  });
});
