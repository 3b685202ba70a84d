import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** Stream parts of a text answer sent as the given deltas, then `finish`. */
export function textParts(...deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: 'text-start', id: 't' },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't', delta })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
}

/** Stream parts of one step of tool calls (`input` is the provider's raw JSON text), then `finish`. */
export function callParts(...calls: { id: string; name: string; input: string }[]): LanguageModelV4StreamPart[] {
  return [
    ...calls.map((call): LanguageModelV4StreamPart => ({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input })),
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ];
}

/**
 * A stand-in model (the AI SDK's MockLanguageModelV4) whose every streamed step is what `respond`
 * returns for the prompt (and whose non-streamed answer is `options.generateText()`): emits exactly the parts a test needs, including ones no real model
 * should send. The prompts it was given are in `prompts`.
 */
export function streamModel(
  respond: (prompt: LanguageModelV4Prompt, step: number) => LanguageModelV4StreamPart[],
  options: { generateText?: () => string } = {},
) {
  const prompts: LanguageModelV4Prompt[] = [];
  const model = new MockLanguageModelV4({
    // Non-streamed calls (structured output, e.g. auto-resume's extraction) answer this text.
    doGenerate: async () => ({
      content: [{ type: 'text', text: options.generateText?.() ?? '' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
    doStream: async (options) => {
      prompts.push(structuredClone(options.prompt));
      const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }, ...respond(options.prompt, prompts.length - 1)];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return Object.assign(model, { prompts });
}

/** True when the latest prompt message carries tool results (the step after tool calls). */
export const afterToolResults = (prompt: LanguageModelV4Prompt) => prompt.at(-1)?.role === 'tool';
