import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FunctionTool,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';

/**
 * The offline, deterministic model used when no provider is configured (behaviour §8). It implements
 * the AI SDK language-model interface, so the runtime cannot tell it from a real provider.
 *
 * Grammar of the latest user message:
 * - `/tool <toolName> <json-args>` lines → one call each, all in one step;
 * - `/say <text>` lines beside `/tool` lines → that text, said before the calls (as real models often do);
 * - `/think <text>` lines beside `/tool` lines → that text as the step's reasoning, before everything else;
 * - "delete record rec-42", "refund order ord-1042 for 250", "what's the weather?",
 *   "weather in Paris", "find user 12345", "look up customer cus-1", "send email to a@b.c";
 * After tool results it answers with one sentence per result, quoting it (or the decline reason).
 */
export class ScriptedModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const;
  readonly provider = 'local';
  readonly modelId = 'scripted';
  readonly supportedUrls = {};

  /** @param options.delayMs pause before each text delta, in ms (0: as fast as possible) */
  constructor(private readonly options: { delayMs?: number } = {}) {}

  async doGenerate(options: LanguageModelV4CallOptions) {
    const content = respond(options.prompt, functionTools(options), options.responseFormat);
    const hasCalls = content.some((part) => part.type === 'tool-call');
    return {
      content,
      finishReason: { unified: hasCalls ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
      usage: usage(),
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions) {
    const content = respond(options.prompt, functionTools(options), options.responseFormat);
    const hasCalls = content.some((part) => part.type === 'tool-call');
    const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    content.forEach((part, index) => {
      if (part.type === 'text') {
        const id = `text-${index}`;
        parts.push({ type: 'text-start', id });
        // Word-sized deltas, so the UI streams like a real model.
        for (const delta of part.text.match(/\S+\s*|\s+/g) ?? []) parts.push({ type: 'text-delta', id, delta });
        parts.push({ type: 'text-end', id });
      } else if (part.type === 'reasoning') {
        const id = `reasoning-${index}`;
        parts.push({ type: 'reasoning-start', id }, { type: 'reasoning-delta', id, delta: part.text }, { type: 'reasoning-end', id });
      } else if (part.type === 'tool-call') {
        parts.push(part);
      }
    });
    parts.push({
      type: 'finish',
      finishReason: { unified: hasCalls ? 'tool-calls' : 'stop', raw: undefined },
      usage: usage(),
    });
    const delayMs = this.options.delayMs ?? 0;
    return {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          for (const part of parts) {
            if (delayMs > 0 && part.type === 'text-delta') await new Promise((resolve) => setTimeout(resolve, delayMs));
            // Like a provider's HTTP call, the answer ends when the caller aborts it (Stop, behaviour §5b).
            if (options.abortSignal?.aborted) {
              controller.error(options.abortSignal.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
              return;
            }
            controller.enqueue(part);
          }
          controller.close();
        },
      }),
    };
  }
}

function usage() {
  return {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
}

function functionTools(options: LanguageModelV4CallOptions): Map<string, LanguageModelV4FunctionTool> {
  const tools = new Map<string, LanguageModelV4FunctionTool>();
  for (const tool of options.tools ?? []) if (tool.type === 'function') tools.set(tool.name, tool);
  return tools;
}

let callCounter = 0;
function callId() {
  callCounter += 1;
  return `call_${Date.now().toString(36)}_${callCounter}`;
}

function textOf(message: LanguageModelV4Prompt[number]): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** Decides the model's reply for a prompt: tool calls for a command, or a sentence about results. */
function respond(
  prompt: LanguageModelV4Prompt,
  tools: Map<string, LanguageModelV4FunctionTool>,
  responseFormat?: LanguageModelV4CallOptions['responseFormat'],
): LanguageModelV4Content[] {
  if (responseFormat?.type === 'json' && responseFormat.schema) {
    return [{ type: 'text', text: JSON.stringify(extractObject(prompt, responseFormat.schema)) }];
  }
  const last = prompt.at(-1);
  if (last?.role === 'tool') return [{ type: 'text', text: summariseResults(prompt) }];
  const lastUser = [...prompt].reverse().find((message) => message.role === 'user');
  const request = lastUser ? textOf(lastUser) : '';
  const calls = parseCommands(request, tools);
  if (calls === 'unsupported') {
    return [{ type: 'text', text: "I don't have a tool for that here." }];
  }
  if (calls.length === 0) {
    return [
      {
        type: 'text',
        text: 'I can look up customers, delete records, refund orders, send emails and check the weather. Try “delete record rec-42” or “what’s the weather?”.',
      },
    ];
  }
  const linesOf = (command: string) =>
    request
      .split('\n')
      .map((line) => line.trim().match(new RegExp(`^/${command}\\s+(.+)$`))?.[1])
      .filter((line): line is string => Boolean(line));
  const said = linesOf('say');
  const thought = linesOf('think');
  return [
    ...(thought.length > 0 ? [{ type: 'reasoning' as const, text: thought.join('\n') }] : []),
    ...(said.length > 0 ? [{ type: 'text' as const, text: said.join('\n') }] : []),
    ...calls.map((call) => ({ type: 'tool-call' as const, toolCallId: callId(), toolName: call.toolName, input: call.raw ?? JSON.stringify(call.args) })),
  ];
}

type JsonSchemaObject = { properties?: Record<string, { type?: string }>; required?: string[] };

/**
 * Structured output (used by auto-resume): fills the schema's properties from the user's answer —
 * strings get the answer's text, numbers its first number, booleans yes/no.
 */
function extractObject(prompt: LanguageModelV4Prompt, schema: unknown): Record<string, unknown> {
  const lastUser = [...prompt].reverse().find((message) => message.role === 'user');
  const raw = lastUser ? textOf(lastUser) : '';
  const answer = (raw.match(/User message:\s*([\s\S]*)$/)?.[1] ?? raw).trim().replace(/[.!?]+$/, '');
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries((schema as JsonSchemaObject).properties ?? {})) {
    if (property.type === 'string') out[key] = answer;
    else if (property.type === 'number' || property.type === 'integer') {
      const number = answer.match(/-?\d+(?:\.\d+)?/);
      if (number) out[key] = Number(number[0]);
    } else if (property.type === 'boolean') out[key] = /^(yes|y|true|ok|sure)\b/i.test(answer);
  }
  return out;
}

/** A tool call to make: its args, or `raw` text sent as the call's input as it is (arguments that are not JSON). */
type Command = { toolName: string; args: Record<string, unknown>; raw?: string };

function parseCommands(text: string, tools: Map<string, LanguageModelV4FunctionTool>): Command[] | 'unsupported' {
  const wanted: Command[] = [];
  const toolLines = text.split('\n').filter((line) => line.trim().startsWith('/tool '));
  if (toolLines.length > 0) {
    for (const line of toolLines) {
      const match = line.trim().match(/^\/tool\s+(\S+)\s*(.*)$/);
      if (!match) continue;
      try {
        wanted.push({ toolName: match[1], args: match[2] ? JSON.parse(match[2]) : {} });
      } catch {
        // Sent as typed, as a real model's broken arguments would be: the runtime refuses the call
        // ("The arguments are not valid JSON; nothing was run."), instead of a schema error about
        // fields of a made-up object.
        wanted.push({ toolName: match[1], args: {}, raw: match[2] });
      }
    }
  } else {
    let m: RegExpMatchArray | null;
    if ((m = text.match(/delete\s+record\s+([\p{L}\p{N}_-]+)/iu))) wanted.push({ toolName: 'delete-record', args: { id: m[1] } });
    else if ((m = text.match(/refund\s+order\s+([\p{L}\p{N}_-]+)\s+for\s+\$?(\d+(?:\.\d+)?)/iu)))
      wanted.push({ toolName: 'issue-refund', args: { orderId: m[1], amount: Number(m[2]) } });
    else if ((m = text.match(/weather\s+in\s+([\p{L}][\p{L} .'-]*?)\s*[?.!]*$/iu))) wanted.push({ toolName: 'get-weather', args: { city: m[1] } });
    else if (/weather/i.test(text)) wanted.push({ toolName: 'get-weather', args: {} });
    else if ((m = text.match(/find\s+user\s+([\p{L}\p{N}_-]+)/iu))) {
      if (tools.has('find-user')) wanted.push({ toolName: 'find-user', args: { userId: m[1] } });
      else {
        const delegate = [...tools.keys()].find((name) => name.startsWith('agent-'));
        if (delegate) wanted.push({ toolName: delegate, args: { prompt: text } });
        else wanted.push({ toolName: 'find-user', args: { userId: m[1] } });
      }
    } else if ((m = text.match(/look\s*up\s+customer\s+([\p{L}\p{N}_-]+)/iu))) wanted.push({ toolName: 'lookup-customer', args: { customerId: m[1] } });
    else if ((m = text.match(/send\s+(?:an\s+)?email\s+to\s+(\S+?@\S+?)(?:\s+(?:about|saying)\s+(.+))?$/i)))
      wanted.push({ toolName: 'send-email', args: { to: m[1], subject: m[2] ?? 'Hello', body: m[2] ?? 'Hello from Countersign.' } });
  }
  if (wanted.length === 0) return [];
  return wanted.every((call) => tools.has(call.toolName)) ? wanted : 'unsupported';
}

/** One sentence per result of the latest tool step, quoting each result or decline reason. */
function summariseResults(prompt: LanguageModelV4Prompt): string {
  const sentences: string[] = [];
  for (let i = prompt.length - 1; i >= 0 && prompt[i].role === 'tool'; i -= 1) {
    const message = prompt[i];
    if (message.role !== 'tool') break;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      if (output.type === 'json') {
        const value = output.value as Record<string, unknown> | null;
        const described =
          value && typeof value === 'object' && typeof value.message === 'string'
            ? value.message
            : value && typeof value === 'object' && typeof value.text === 'string'
              ? value.text
              : JSON.stringify(value);
        sentences.unshift(`${part.toolName}: ${described}`);
      } else if (output.type === 'text') {
        // A decline reads "A person declined this tool call, so it was NOT executed. Their reason: …" (lib/agent/history.ts).
        sentences.unshift(`I did not run ${part.toolName}: ${output.value.match(/Their reason: ([\s\S]*)$/)?.[1] ?? output.value}`);
      } else if (output.type === 'error-text') {
        sentences.unshift(`${part.toolName} failed: ${output.value}`);
      } else if (output.type === 'execution-denied') {
        sentences.unshift(`I did not run ${part.toolName}: ${output.reason ?? 'it was not approved'}`);
      } else {
        sentences.unshift(`${part.toolName} finished.`);
      }
    }
  }
  return sentences.map((sentence) => (/[.!?]$/.test(sentence) ? sentence : `${sentence}.`)).join(' ');
}
