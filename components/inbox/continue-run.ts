import { parseJsonEventStream, uiMessageChunkSchema, type UIMessageChunk } from 'ai';
import { friendlyError, parseApiError, type FriendlyError } from '@/components/ui/api-error';
import type { People } from '@/lib/present/describe';

export type ContinueOutcome =
  | {
      ok: true;
      text: string;
      paused: boolean;
      /** Set when the approval counted as one vote of a quorum. */
      vote?: { approvals: number; quorum: number };
      /** The decided call's tool result in the continuation (its output, or its error text), when it ran. */
      result?: { output?: unknown; errorText?: string };
    }
  | { ok: false; error: FriendlyError };

/**
 * POSTs a decision or an answer for one pending call and reads the run's continuation (an AI SDK UI
 * message stream) to its end. Source: behaviour §7 — an accepted decision answers 200 with the stream,
 * a refused one a JSON error.
 *
 * @param path `/api/runs/{runId}/tool-calls/{toolCallId}/decision` or `.../resume`
 * @returns the continuation's text, whether it paused again and the decided call's tool result
 *   (the chunk for the tool call id in `path`), or the refusal as a sentence
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

  // The continuation belongs to a message this page never saw (its tool parts live in the chat), so
  // the chunks are read directly rather than folded into a UI message.
  const reader = parseJsonEventStream({ stream: response.body, schema: uiMessageChunkSchema }).getReader();
  let text = '';
  let paused = false;
  let vote: { approvals: number; quorum: number } | undefined;
  let streamError: string | undefined;
  let result: { output?: unknown; errorText?: string } | undefined;
  // The decided call's id, as the continuation's tool chunks name it.
  const toolCallId = decodeURIComponent(path.match(/\/tool-calls\/([^/]+)\//)?.[1] ?? '');
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!value.success) continue;
    const chunk = value.value as UIMessageChunk;
    if (chunk.type === 'text-delta') text += chunk.delta;
    else if (chunk.type === 'text-end') text += ' ';
    else if (chunk.type === 'error') streamError = chunk.errorText;
    else if (chunk.type === 'tool-output-available' && chunk.toolCallId === toolCallId) result = { output: chunk.output };
    else if (chunk.type === 'tool-output-error' && chunk.toolCallId === toolCallId) result = { errorText: chunk.errorText };
    else if (chunk.type === 'data-tool-call-approval' || chunk.type === 'data-tool-call-suspended') {
      const data = chunk.data as { resumed?: boolean; quorum?: number; approvals?: number } | undefined;
      if (!data?.resumed) paused = true;
      if (chunk.type === 'data-tool-call-approval' && !data?.resumed && data?.quorum && typeof data.approvals === 'number') {
        vote = { approvals: data.approvals, quorum: data.quorum };
      }
    }
  }
  if (streamError) {
    return {
      ok: false,
      error: { code: 'STREAM_ERROR', message: 'The decision was recorded, but the run failed afterwards.', next: 'Open the chat to see where it stopped.', issues: [streamError] },
    };
  }
  text = text.trim();
  return { ok: true, text, paused, ...(vote ? { vote } : {}), ...(result ? { result } : {}) };
}
