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
  /**
   * A provider that stops answering: `'before-headers'` never answers the request at all;
   * `'after-events'` writes `events` and then keeps the response open without sending more.
   * Either stays open until the client gives up or the server closes.
   */
  hang?: 'before-headers' | 'after-events';
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
  let guard: ((body: any) => Reply | undefined) | undefined;
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
      const refusal = guard?.(recorded.body);
      const reply = refusal ?? replies.shift() ?? { status: 599, json: { error: { message: 'no reply scripted for this request' } } };
      if (reply.hang === 'before-headers') return;
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
        if (reply.hang) return;
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
    /**
     * Checks every request's body before its scripted reply: a reply returned here is sent instead
     * (the queued one stays queued), e.g. the 400 a provider answers to a history it refuses.
     */
    setGuard(check: ((body: any) => Reply | undefined) | undefined) {
      guard = check;
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
  toolCalls(calls: { id: string; name: string; argChunks: string[] }[], options: { finishReason?: string; complete?: boolean; cut?: boolean } = {}): Reply {
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
    if (options.complete === false) return { events, cut: options.cut };
    events.push(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: options.finishReason ?? 'tool_calls' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
    events.push(sse('[DONE]'));
    return { events };
  },
  /** A stream that starts an answer, then sends an error event (`data: {"error": …}`) instead. */
  streamError(error: { message: string; type?: string; code?: string | null }): Reply {
    const base = { id: 'chatcmpl-3', object: 'chat.completion.chunk', created: 1_767_000_000, model: 'fake-model' };
    return { events: [sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }), sse({ error })] };
  },
  /** A text answer in deltas; `complete: false` stops before the finish chunk, `cut` drops the connection. */
  text(deltas: string[], options: { complete?: boolean; cut?: boolean; field?: 'content' | 'refusal'; finishReason?: string } = {}): Reply {
    const base = { id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1_767_000_000, model: 'fake-model' };
    const field = options.field ?? 'content';
    const events = [
      sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
      ...deltas.map((delta) => sse({ ...base, choices: [{ index: 0, delta: { [field]: delta }, finish_reason: null }] })),
    ];
    if (options.complete !== false) {
      events.push(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: options.finishReason ?? 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
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
  /** Tool calls (after an optional thinking block and text); `stop_reason: tool_use`. */
  toolCalls(
    calls: { id: string; name: string; argChunks: string[] }[],
    text?: string,
    thinking?: AnthropicThinking,
    options: { stopReason?: string; complete?: boolean; cut?: boolean } = {},
  ): Reply {
    const events = [messageStart()];
    let index = 0;
    if (thinking) {
      events.push(...thinkingBlock(index, thinking));
      index += 1;
    }
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
    if (options.complete === false) return { events, cut: options.cut };
    events.push(anthropicEvent({ type: 'message_delta', delta: { stop_reason: options.stopReason ?? 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } } as never));
    events.push(anthropicEvent({ type: 'message_stop' }));
    return { events };
  },
  /** A text answer; `messageStop: false` ends the stream after `message_delta` (complete, without `message_stop`). */
  text(deltas: string[], options: { complete?: boolean; cut?: boolean; stopReason?: string; messageStop?: boolean } = {}): Reply {
    const events = [messageStart(), anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } as never)];
    for (const text of deltas) events.push(anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } as never));
    if (options.complete !== false) {
      events.push(anthropicEvent({ type: 'content_block_stop', index: 0 } as never));
      events.push(anthropicEvent({ type: 'message_delta', delta: { stop_reason: options.stopReason ?? 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } } as never));
      if (options.messageStop !== false) events.push(anthropicEvent({ type: 'message_stop' }));
    }
    return { events, cut: options.cut };
  },
  error(status: number, headers: Record<string, string> = {}): Reply {
    const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error';
    return { status, headers, json: { type: 'error', error: { type, message: status === 401 ? 'invalid x-api-key sk-ant-***SECRET' : `upstream error ${status}` } } };
  },
};

/** An Anthropic thinking block: text with its signature, or redacted (encrypted) thinking. */
export type AnthropicThinking = { text: string; signature: string } | { redacted: string };

function thinkingBlock(index: number, thinking: AnthropicThinking): string[] {
  if ('redacted' in thinking) {
    return [
      anthropicEvent({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: thinking.redacted } } as never),
      anthropicEvent({ type: 'content_block_stop', index } as never),
    ];
  }
  return [
    anthropicEvent({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } } as never),
    anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: thinking.text } } as never),
    anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: thinking.signature } } as never),
    anthropicEvent({ type: 'content_block_stop', index } as never),
  ];
}

/**
 * Anthropic's check on a history with thinking enabled: the last assistant turn that used a tool
 * must start with a thinking or redacted_thinking block — else the 400 Anthropic answers.
 */
export function anthropicRequiresThinking(body: any): Reply | undefined {
  if (!body?.thinking || body.thinking.type === 'disabled') return undefined;
  const last = [...(body.messages ?? [])].reverse().find((message: any) => message.role === 'assistant');
  if (!last || !Array.isArray(last.content) || !last.content.some((part: any) => part.type === 'tool_use')) return undefined;
  if (['thinking', 'redacted_thinking'].includes(last.content[0]?.type)) return undefined;
  return {
    status: 400,
    json: {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.',
      },
    },
  };
}

/** Recorded-shape OpenAI Responses API streams (what `@ai-sdk/openai` reads at `/responses`). */
export const responses = {
  /** Function calls, after an optional reasoning item (summary text and encrypted content). */
  toolCalls(calls: { id: string; name: string; argChunks: string[] }[], reasoning?: ResponsesReasoning, options: { complete?: boolean; cut?: boolean } = {}): Reply {
    const events = [sse({ type: 'response.created', response: { id: 'resp_1', created_at: 1_767_000_000, model: 'o4-mini' } })];
    let index = 0;
    if (reasoning) events.push(...reasoningItem(index++, reasoning));
    for (const call of calls) {
      const item = { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: '' };
      events.push(sse({ type: 'response.output_item.added', output_index: index, item }));
      for (const part of call.argChunks) events.push(sse({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta: part }));
      events.push(sse({ type: 'response.output_item.done', output_index: index, item: { ...item, arguments: call.argChunks.join(''), status: 'completed' } }));
      index += 1;
    }
    if (options.complete === false) return { events, cut: options.cut };
    events.push(sse({ type: 'response.completed', response: { usage: responsesUsage } }));
    return { events };
  },
  /** A text answer; `incomplete` ends it as cut off by the output limit (`max_output_tokens`). */
  text(deltas: string[], options: { reasoning?: ResponsesReasoning } = {}): Reply {
    const events = [sse({ type: 'response.created', response: { id: 'resp_2', created_at: 1_767_000_000, model: 'o4-mini' } })];
    let index = 0;
    if (options.reasoning) events.push(...reasoningItem(index++, options.reasoning));
    events.push(sse({ type: 'response.output_item.added', output_index: index, item: { type: 'message', id: 'msg_1' } }));
    for (const delta of deltas) events.push(sse({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: index, delta }));
    events.push(sse({ type: 'response.output_item.done', output_index: index, item: { type: 'message', id: 'msg_1' } }));
    events.push(sse({ type: 'response.completed', response: { usage: responsesUsage } }));
    return { events };
  },
};

/** An OpenAI reasoning item: its id, summary text and encrypted content. */
export type ResponsesReasoning = { id: string; summary: string; encrypted: string };

const responsesUsage = { input_tokens: 10, output_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 3 } };

function reasoningItem(index: number, reasoning: ResponsesReasoning): string[] {
  return [
    sse({ type: 'response.output_item.added', output_index: index, item: { type: 'reasoning', id: reasoning.id, encrypted_content: reasoning.encrypted } }),
    sse({ type: 'response.reasoning_summary_part.added', item_id: reasoning.id, output_index: index, summary_index: 0 }),
    sse({ type: 'response.reasoning_summary_text.delta', item_id: reasoning.id, output_index: index, summary_index: 0, delta: reasoning.summary }),
    sse({ type: 'response.reasoning_summary_part.done', item_id: reasoning.id, output_index: index, summary_index: 0 }),
    sse({ type: 'response.output_item.done', output_index: index, item: { type: 'reasoning', id: reasoning.id, encrypted_content: reasoning.encrypted } }),
  ];
}

/**
 * OpenAI's check on a stateless (`store: false`) history: a function call of a reasoning model
 * must come after its reasoning item, sent back with its encrypted content — else the 400 OpenAI answers.
 */
export function openaiRequiresReasoning(body: any): Reply | undefined {
  const input: any[] = body?.input ?? [];
  for (const [position, item] of input.entries()) {
    if (item.type !== 'function_call') continue;
    const before = input.slice(0, position).reverse().find((candidate) => candidate.type !== 'function_call');
    if (before?.type === 'reasoning' && typeof before.encrypted_content === 'string') continue;
    return { status: 400, json: { error: { message: `Item '${item.call_id}' of type 'function_call' was provided without its required 'reasoning' item.`, type: 'invalid_request_error', code: null } } };
  }
  return undefined;
}

function messageStart() {
  return anthropicEvent({
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-fake', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
  } as never);
}
