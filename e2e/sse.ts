import { EventSourceParserStream } from 'eventsource-parser/stream';

/**
 * Parses an SSE body (`data: <json>` events, ending with `data: [DONE]`) into its JSON events.
 * @param body the raw response body
 */
export async function parseSse<T = Record<string, unknown>>(body: string | Buffer): Promise<T[]> {
  const events: T[] = [];
  const stream = new Response(typeof body === "string" ? body : new Uint8Array(body)).body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of stream) {
    if (event.data === '[DONE]') break;
    events.push(JSON.parse(event.data) as T);
  }
  return events;
}
