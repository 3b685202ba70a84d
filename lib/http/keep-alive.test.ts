import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { AgentChunk } from '@/lib/agent/chunks';
import { makeChunk } from '@/lib/agent/context';
import { KEEPALIVE_COMMENT, KEEPALIVE_MS } from './keep-alive';
import { chunkSseResponse, uiStreamResponse } from './sse';

/*
 * Issue 30, item 4: a chat waiting on a slow model must not be cut by a proxy with a 60 s idle
 * timeout. The event streams send an SSE comment when idle; the AI SDK's own client (the transport
 * `useChat` uses, and its message assembly) must read the stream exactly as without it.
 */

const RUN = 'run-keepalive';

/** A segment that starts, stays silent for `silentMs`, then answers "Hello" and finishes. */
function slowSegment(silentMs: number) {
  const chunks: AgentChunk[] = [
    makeChunk(RUN, 'start', { messageId: 'msg-1', threadId: 'thread-1' }),
    makeChunk(RUN, 'step-start', { step: 0 }),
    makeChunk(RUN, 'text-start', { id: 't0' }),
    makeChunk(RUN, 'text-delta', { id: 't0', text: 'Hel' }),
    makeChunk(RUN, 'text-delta', { id: 't0', text: 'lo' }),
    makeChunk(RUN, 'text-end', { id: 't0' }),
    makeChunk(RUN, 'step-finish', { step: 0, finishReason: 'stop' }),
    makeChunk(RUN, 'finish', { finishReason: 'stop' }),
  ];
  const fullStream = new ReadableStream<AgentChunk>({
    async start(controller) {
      controller.enqueue(chunks[0]);
      controller.enqueue(chunks[1]);
      await new Promise((resolve) => setTimeout(resolve, silentMs));
      for (const chunk of chunks.slice(2)) controller.enqueue(chunk);
      controller.close();
    },
  });
  return { runId: RUN, fullStream };
}

describe('keep-alive on event streams', () => {
  it('is sent at least every 15 s by default', () => {
    expect(KEEPALIVE_MS).toBeLessThanOrEqual(15_000);
  });

  it('the UI message stream sends a comment while the model is silent, and useChat’s transport still reads the answer', async () => {
    const response = uiStreamResponse(slowSegment(400), { keepAliveMs: 50 });
    const [raw, forClient] = response.body!.tee();
    const text = await new Response(raw).text();
    // Comments during the silence (timers may run late on a busy machine: at least one), between whole events.
    expect(text.indexOf(KEEPALIVE_COMMENT)).toBeGreaterThan(0);
    expect(text.indexOf(KEEPALIVE_COMMENT)).toBeLessThan(text.indexOf('"text-delta"'));
    expect(text.split('\n\n').filter(Boolean).every((block) => block.startsWith('data: ') || block === ': keep-alive')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);

    // The AI SDK's chat transport (what useChat calls) over this very response.
    const transport = new DefaultChatTransport<UIMessage>({
      api: '/api/chat',
      fetch: async () => new Response(forClient, { headers: response.headers }),
    });
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: 'thread-1',
      messageId: undefined,
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      abortSignal: undefined,
    });
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream, terminateOnError: true })) last = message;
    expect(last?.id).toBe('msg-1');
    expect(last?.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text)).toEqual(['Hello']);
  });

  it('the runtime-chunk SSE of the agents routes sends a comment while silent; every data block still parses', async () => {
    const text = await chunkSseResponse(slowSegment(400).fullStream, { keepAliveMs: 50 }).text();
    const blocks = text.split('\n\n').filter(Boolean);
    expect(blocks.filter((block) => block === ': keep-alive').length).toBeGreaterThanOrEqual(1);
    const data = blocks.filter((block) => block.startsWith('data: ')).map((block) => block.slice(6));
    expect(data.at(-1)).toBe('[DONE]');
    expect(data.slice(0, -1).map((json) => (JSON.parse(json) as AgentChunk).type)).toEqual([
      'start', 'step-start', 'text-start', 'text-delta', 'text-delta', 'text-end', 'step-finish', 'finish',
    ]);
    // Nothing but data blocks and comments.
    expect(blocks.every((block) => block.startsWith('data: ') || block === ': keep-alive')).toBe(true);
  });

  it('sends nothing extra to a stream that is never idle that long', async () => {
    const text = await uiStreamResponse(slowSegment(0), { keepAliveMs: 1_000 }).text();
    expect(text).not.toContain(KEEPALIVE_COMMENT);
  });
});

describe('keep-alive on the notice streams', () => {
  it('/api/chat/{id}/events and /api/inbox/events send a comment at the (injectable) interval while no notice comes', async () => {
    const { noticeStreamResponse } = await import('./notify-sse');
    const controller = new AbortController();
    const response = noticeStreamResponse({
      request: new Request('http://localhost/api/inbox/events', { signal: controller.signal }),
      actorId: 'keepalive-test',
      event: '{"type":"changed"}',
      intervalMs: 10,
      subscribe: async () => [],
      keepAliveMs: 30,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes(KEEPALIVE_COMMENT)) text += (await reader.read()).value ?? '';
    controller.abort();
    expect(text.startsWith(': connected\n\n')).toBe(true);
  });
});
