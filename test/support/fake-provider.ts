import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a provider package sent, as the loopback server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Set when the client closed the connection before the reply ended (an aborted model call). */
  aborted?: boolean;
}

/** What the loopback server answers one request with. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Server-sent events, written one by one (each a complete `data: …\n\n` block). */
  events?: string[];
  /** A JSON body (for errors). */
  json?: unknown;
  /** After writing `events`, destroy the socket instead of ending the response (a cut connection). */
  cut?: boolean;
  /** Wait this long, in ms, before answering at all (a provider that stalls). */
  delayMs?: number;
}

/**
 * A loopback HTTP server (node:http on 127.0.0.1, port 0) standing in for a model provider: each
 * request gets the next scripted reply, and every request is recorded, so a test can assert what
 * the real provider package sent. An unscripted request gets a 599 that fails the run loudly.
 */
export async function startFakeProvider() {
  const requests: RecordedRequest[] = [];
  const replies: Reply[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: text ? JSON.parse(text) : null };
      requests.push(recorded);
      response.on('close', () => {
        if (!response.writableFinished) recorded.aborted = true;
      });
      const reply = replies.shift() ?? { status: 599, json: { error: { message: 'no reply scripted for this request' } } };
      if (reply.delayMs) {
        setTimeout(() => {
          if (!response.destroyed) answer(response, reply);
        }, reply.delayMs);
        return;
      }
      answer(response, reply);
    });
  });
  const answer = (response: http.ServerResponse, reply: Reply) => {
    if (reply.events) {
      response.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
      // Each event in its own write, so the client sees them as separate network chunks.
      const write = async () => {
        for (const event of reply.events!) {
          response.write(event);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        if (reply.cut) response.socket?.destroy();
        else response.end();
      };
      void write();
      return;
    }
    response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    response.end(JSON.stringify(reply.json ?? {}));
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Queues replies for the next requests, in order. */
    reply(...next: Reply[]) {
      replies.push(...next);
    },
    /** Replies still queued (a test that expects all to be used asserts this is 0). */
    pending: () => replies.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeProvider = Awaited<ReturnType<typeof startFakeProvider>>;

const sse = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const anthropicEvent = (data: { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

/** Recorded-shape OpenAI chat-completions streams (what `@ai-sdk/openai-compatible` reads). */
export const openai = {
  /** Tool calls whose arguments arrive split across several deltas; `finish_reason: tool_calls`. */
  toolCalls(calls: { id: string; name: string; argChunks: string[] }[]): Reply {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_767_000_000, model: 'fake-model' };
    const events: string[] = [sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }] })];
    calls.forEach((call, index) => {
      events.push(
        sse({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, finish_reason: null }] }),
      );
      for (const part of call.argChunks) {
        events.push(sse({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: part } }] }, finish_reason: null }] }));
      }
    });
    events.push(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
    events.push(sse('[DONE]'));
    return { events };
  },
  /** A text answer in deltas; `complete: false` stops before the finish chunk, `cut` drops the connection. */
  text(deltas: string[], options: { complete?: boolean; cut?: boolean; field?: 'content' | 'refusal' } = {}): Reply {
    const base = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1_767_000_000, model: 'fake-model' };
    const field = options.field ?? 'content';
    const events = [
      sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
      ...deltas.map((delta) => sse({ ...base, choices: [{ index: 0, delta: { [field]: delta }, finish_reason: null }] })),
    ];
    if (options.complete !== false) {
      events.push(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
      events.push(sse('[DONE]'));
    }
    return { events, cut: options.cut };
  },
  /** An error answer as OpenAI sends it (the body echoes part of the key on a 401, as OpenAI's does). */
  error(status: number, headers: Record<string, string> = {}): Reply {
    return {
      status,
      headers,
      json: { error: { message: status === 401 ? 'Incorrect API key provided: sk-test-***SECRET' : `upstream error ${status}`, type: 'error', code: String(status) } },
    };
  },
};

/** Recorded-shape Anthropic messages streams (what `@ai-sdk/anthropic` reads). */
export const anthropic = {
  toolCalls(calls: { id: string; name: string; argChunks: string[] }[], text?: string): Reply {
    const events = [messageStart()];
    let index = 0;
    if (text) {
      events.push(anthropicEvent({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } } as never));
      events.push(anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } } as never));
      events.push(anthropicEvent({ type: 'content_block_stop', index } as never));
      index += 1;
    }
    for (const call of calls) {
      events.push(anthropicEvent({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } } as never));
      for (const part of call.argChunks) {
        events.push(anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } } as never));
      }
      events.push(anthropicEvent({ type: 'content_block_stop', index } as never));
      index += 1;
    }
    events.push(anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } } as never));
    events.push(anthropicEvent({ type: 'message_stop' }));
    return { events };
  },
  text(deltas: string[], options: { complete?: boolean; cut?: boolean; stopReason?: string } = {}): Reply {
    const events = [messageStart(), anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } as never)];
    for (const text of deltas) events.push(anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } as never));
    if (options.complete !== false) {
      events.push(anthropicEvent({ type: 'content_block_stop', index: 0 } as never));
      events.push(anthropicEvent({ type: 'message_delta', delta: { stop_reason: options.stopReason ?? 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } } as never));
      events.push(anthropicEvent({ type: 'message_stop' }));
    }
    return { events, cut: options.cut };
  },
  error(status: number, headers: Record<string, string> = {}): Reply {
    const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error';
    return { status, headers, json: { type: 'error', error: { type, message: status === 401 ? 'invalid x-api-key sk-ant-***SECRET' : `upstream error ${status}` } } };
  },
};

function messageStart() {
  return anthropicEvent({
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-fake', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
  } as never);
}
