import 'server-only';
import { createUIMessageStreamResponse, JsonToSseTransformStream, UI_MESSAGE_STREAM_HEADERS } from 'ai';
import type { AgentChunk } from '@/lib/agent/chunks';
import { describeAppCall } from '@/lib/chat/describe';
import { uiChunkTransform } from '@/lib/ui-stream/map';

/**
 * SSE headers of the agents routes: the AI SDK's stream headers (`text/event-stream`, no caching,
 * keep-alive, `x-accel-buffering: no` so proxies do not hold chunks back), without the marker that
 * says the body is a UI message stream — these bodies carry runtime chunks.
 */
const { 'x-vercel-ai-ui-message-stream': _uiMarker, ...CHUNK_SSE_HEADERS } = UI_MESSAGE_STREAM_HEADERS;

/**
 * Runtime chunks as Server-Sent Events, framed `data: <json>\n\n` and closed with `data: [DONE]`
 * (the AI SDK's `JsonToSseTransformStream`), the framing HTTP clients of the seed's framework read.
 *
 * @param stream the run's chunks (`fullStream`)
 * @returns a 200 response streaming them
 */
export function chunkSseResponse(stream: ReadableStream<AgentChunk>): Response {
  const body = stream.pipeThrough(new JsonToSseTransformStream()).pipeThrough(new TextEncoderStream());
  return new Response(body, { headers: CHUNK_SSE_HEADERS });
}

/**
 * A run's chunks as an AI SDK UI message stream response (SSE) that `useChat` reads.
 * @param result a segment of the run (`stream()` or a decision's continuation)
 */
export function uiStreamResponse(result: { runId: string; fullStream: ReadableStream<AgentChunk> }): Response {
  return createUIMessageStreamResponse({ stream: result.fullStream.pipeThrough(uiChunkTransform(result.runId, describeAppCall)) });
}
