import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { friendlyError, parseApiError, type FriendlyError } from '@/components/ui/api-error';
import type { People } from '@/components/ui/describe';

export type ContinueOutcome = { ok: true; text: string; paused: boolean } | { ok: false; error: FriendlyError };

/**
 * POSTs a decision or an answer for one pending call and reads the run's continuation (an AI SDK UI
 * message stream) to its end. Source: SPEC §7 — an accepted decision answers 200 with the stream,
 * a refused one a JSON error.
 *
 * @param path `/api/runs/{runId}/tool-calls/{toolCallId}/decision` or `.../resume`
 * @returns the continuation's text and whether it paused again, or the refusal as a sentence
 */
export async function continueRun(path: string, body: unknown, people: People, viewerId: string): Promise<ContinueOutcome> {
  let response: Response;
  try {
    response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch {
    return { ok: false, error: friendlyError(null, people, viewerId) };
  }
  if (!response.ok || !response.body) {
    const text = await response.text().catch(() => '');
    return { ok: false, error: friendlyError(parseApiError(text), people, viewerId) };
  }

  const chunks = parseJsonEventStream({ stream: response.body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream<{ success: boolean; value?: unknown }, UIMessageChunk>({
      transform(result, controller) {
        if (result.success) controller.enqueue(result.value as UIMessageChunk);
      },
    }),
  );
  let last: UIMessage | undefined;
  let streamError: string | undefined;
  for await (const message of readUIMessageStream({ stream: chunks, onError: (error) => (streamError = String(error)) })) {
    last = message;
  }
  if (streamError) {
    return { ok: false, error: { code: 'STREAM_ERROR', message: 'The run continued but then failed.', next: 'Open the chat to see where it stopped.', issues: [streamError] } };
  }
  const parts = last?.parts ?? [];
  const text = parts
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join(' ')
    .trim();
  const paused = parts.some(
    (part) =>
      (part.type === 'data-tool-call-approval' || part.type === 'data-tool-call-suspended') &&
      !(part as { data?: { resumed?: boolean } }).data?.resumed,
  );
  return { ok: true, text, paused };
}
