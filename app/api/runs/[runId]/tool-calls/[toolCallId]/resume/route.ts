import { resumeSchema } from './schema';
import { currentReviewer } from '@/lib/auth/demo';
import { continueRun, uiStreamResponse } from '@/lib/chat/continue';
import { readJson, withErrors } from '@/lib/http/errors';

type Params = { params: Promise<{ runId: string; toolCallId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const { runId, toolCallId } = await params;
  const body = await readJson(request, resumeSchema);
  const result = await continueRun({ type: 'resume', runId, toolCallId, resumeData: body.resumeData, actor: currentReviewer() });
  return uiStreamResponse(result);
});
