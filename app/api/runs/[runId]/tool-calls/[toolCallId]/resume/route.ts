import { resumeSchema } from './schema';
import { requireActor } from '@/lib/auth/session';
import { parseJson, withErrors } from '@/lib/http/errors';
import { uiStreamResponse } from '@/lib/http/sse';
import { decisionResponse } from '@/lib/runs/decision';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ runId: string; toolCallId: string }> };

export const POST = withErrors(async (request: Request, { params }: Params) => {
  const { runId, toolCallId } = await params;
  // Any signed-in person; an end user only reaches their own runs (lib/runs/access.ts), four-eyes is the runtime's.
  const actor = await requireActor(request);
  return decisionResponse({
    request,
    actor,
    rateLimit: 'runs',
    parse: (text) => ({ kind: 'resume', runId, toolCallId, resumeData: parseJson(text, resumeSchema).resumeData }),
    respond: ({ continuation }) => uiStreamResponse(continuation),
  });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
