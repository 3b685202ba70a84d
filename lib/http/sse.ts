import 'server-only';
import { createUIMessageStreamResponse, JsonToSseTransformStream, UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from 'ai';
import { keepAliveResponse, withKeepAlive } from './keep-alive';
import type { AgentChunk } from '@/lib/agent/chunks';
import { describeAppCall } from '@/lib/chat/describe';
import { uiChunkTransform } from '@/lib/ui-stream/map';

/**
 * What every event stream of the app adds to the AI SDK's stream headers: `no-transform`, so no
 * proxy, and not Next's own response compression (its `compression` middleware skips such
 * responses), re-encodes the stream. Gzip on an event stream compresses and flushes every event on
 * its own: in `npm run bench` it was 5 % of the server's CPU, and each event waits for its flush.
 */
export const SSE_HEADERS = { 'cache-control': 'no-cache, no-transform' } as const;

/**
 * SSE headers of the agents routes: the AI SDK's stream headers (`text/event-stream`, no caching,
 * keep-alive, `x-accel-buffering: no` so proxies do not hold chunks back) and `SSE_HEADERS`,
 * without the marker that says the body is a UI message stream — these bodies carry runtime chunks.
 */
const { 'x-vercel-ai-ui-message-stream': _uiMarker, ...aiHeaders } = UI_MESSAGE_STREAM_HEADERS;
const CHUNK_SSE_HEADERS = { ...aiHeaders, ...SSE_HEADERS };

/**
 * Runtime chunks as Server-Sent Events, framed `data: <json>\n\n` and closed with `data: [DONE]`
 * (the AI SDK's `JsonToSseTransformStream`), the framing HTTP clients of the seed's framework read.
 *
 * @param stream the run's chunks (`fullStream`)
 * @returns a 200 response streaming them
 */
export function chunkSseResponse(stream: ReadableStream<AgentChunk>, options: { keepAliveMs?: number } = {}): Response {
  const body = stream.pipeThrough(new JsonToSseTransformStream()).pipeThrough(new TextEncoderStream());
  return new Response(withKeepAlive(body, options.keepAliveMs), { headers: CHUNK_SSE_HEADERS });
}

/**
 * A run's chunks as an AI SDK UI message stream response (SSE) that `useChat` reads, with a
 * keep-alive comment whenever nothing was sent for KEEPALIVE_MS (keep-alive.ts).
 * @param result a segment of the run (`stream()` or a decision's continuation)
 * @param options.keepAliveMs the keep-alive interval in ms (tests shorten it)
 */
export function uiStreamResponse(result: { runId: string; fullStream: ReadableStream<AgentChunk> }, options: { keepAliveMs?: number } = {}): Response {
  return uiMessageStreamResponse(result.fullStream.pipeThrough(uiChunkTransform(result.runId, describeAppCall)), options);
}

/**
 * UI message chunks as the AI SDK's UI message stream response, with keep-alive comments.
 * @param options.keepAliveMs the keep-alive interval in ms (default KEEPALIVE_MS)
 */
export function uiMessageStreamResponse(stream: ReadableStream<UIMessageChunk>, options: { keepAliveMs?: number } = {}): Response {
  return keepAliveResponse(createUIMessageStreamResponse({ stream, headers: SSE_HEADERS }), options.keepAliveMs);
}
