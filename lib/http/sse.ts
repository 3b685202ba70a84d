import 'server-only';
import type { AgentChunk } from '@/lib/agent/chunks';

/**
 * Runtime chunks as Server-Sent Events, framed `data: <json>\n\n` and closed with `data: [DONE]`,
 * the framing HTTP clients of the seed's framework read.
 */
export function chunkSseResponse(stream: ReadableStream<AgentChunk>): Response {
  const body = stream
    .pipeThrough(
      new TransformStream<AgentChunk, string>({
        transform(chunk, controller) {
          controller.enqueue(`data: ${JSON.stringify(chunk)}\n\n`);
        },
        flush(controller) {
          controller.enqueue('data: [DONE]\n\n');
        },
      }),
    )
    .pipeThrough(new TextEncoderStream());
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}
