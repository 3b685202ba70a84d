import { decisionSchema } from './schema';
import { currentReviewer } from '@/lib/auth/demo';
import { continueRun, uiStreamResponse } from '@/lib/chat/continue';
import { readJson, withErrors } from '@/lib/http/errors';

type Params = { params: Promise<{ runId: string; toolCallId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const { runId, toolCallId } = await params;
  const body = await readJson(request, decisionSchema);
  const result = await continueRun({ type: 'decision', runId, toolCallId, ...body, actor: currentReviewer() });
  return uiStreamResponse(result);
});
