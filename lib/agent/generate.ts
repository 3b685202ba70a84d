import { generateText, Output, type LanguageModel } from 'ai';
import type { z } from 'zod';
import type { AgentChunk, ChunkPayloads } from './chunks';

/** The result of `generate()` and the `*Generate` continuations. Source: behaviour §1. */
export interface GenerateResult {
  runId: string;
  text: string;
  finishReason: ChunkPayloads['finish']['finishReason'];
  toolCalls: { toolCallId: string; toolName: string; args: unknown }[];
  toolResults: { toolCallId: string; toolName: string; args: unknown; result: unknown }[];
  /** The calls waiting on a person when `finishReason` is `suspended`. */
  suspendedToolCalls: {
    toolCallId: string;
    toolName: string;
    args: unknown;
    /** True for an approval (also one raised by a sub-agent), false for a tool's question. */
    requiresApproval: boolean;
    suspendPayload?: unknown;
    resumeSchema: string;
    chain?: string[];
  }[];
  /** The first waiting call's payload: the tool's own, or `{ toolCallId, toolName, args }` for an approval. */
  suspendPayload?: unknown;
  resumeSchema?: string;
  /**
   * Why the run failed, when `finishReason` is `error` (code: see failure.ts, message safe to
   * show). Tool calls that ran before the failure are still in `toolResults`.
   */
  error?: { code: string; message: string };
}

/**
 * Reads a segment's chunks to the end and sums them up.
 * @param result.runId the run the chunks belong to
 */
export async function summariseChunks(result: { runId: string; fullStream: ReadableStream<AgentChunk> }): Promise<GenerateResult> {
  const out: GenerateResult = { runId: result.runId, text: '', finishReason: 'other', toolCalls: [], toolResults: [], suspendedToolCalls: [] };
  let failure: GenerateResult['error'];
  for await (const chunk of result.fullStream) {
    switch (chunk.type) {
      case 'text-delta':
        out.text += chunk.payload.text;
        break;
      case 'tool-call':
        out.toolCalls.push(chunk.payload);
        break;
      case 'tool-result':
        out.toolResults.push(chunk.payload);
        break;
      case 'tool-call-approval': {
        const { toolCallId, toolName, args, resumeSchema, chain } = chunk.payload;
        out.suspendedToolCalls.push({ toolCallId, toolName, args, requiresApproval: true, resumeSchema, chain });
        break;
      }
      case 'tool-call-suspended': {
        const { toolCallId, toolName, args, suspendPayload, resumeSchema, chain } = chunk.payload;
        out.suspendedToolCalls.push({ toolCallId, toolName, args, requiresApproval: false, suspendPayload, resumeSchema, chain });
        break;
      }
      case 'error':
        failure = { code: chunk.payload.code ?? 'RUN_FAILED', message: chunk.payload.message };
        break;
      case 'finish':
        out.finishReason = chunk.payload.finishReason;
        break;
      default:
        break;
    }
  }
  if (out.finishReason === 'error') out.error = failure ?? { code: 'RUN_FAILED', message: 'The agent stopped because of an error.' };
  const first = out.suspendedToolCalls[0];
  if (out.finishReason === 'suspended' && first) {
    out.suspendPayload = first.requiresApproval ? { toolCallId: first.toolCallId, toolName: first.toolName, args: first.args } : first.suspendPayload;
    out.resumeSchema = first.resumeSchema;
  }
  return out;
}

/**
 * Asks the model to turn a user's message into resume data for `schema` (structured output).
 * Used by auto-resume (behaviour §3).
 * @returns the validated data, or undefined when the message does not answer the question
 */
export async function extractResumeData(input: { model: LanguageModel; schema: z.ZodType; text: string; suspendPayload: unknown }) {
  try {
    const { output } = await generateText({
      model: input.model,
      output: Output.object({ schema: input.schema }),
      system: 'Extract the answer to the pending question from the user message as JSON matching the schema.',
      prompt: `Question: ${JSON.stringify(input.suspendPayload)}\nUser message: ${input.text}`,
    });
    const parsed = input.schema.safeParse(output);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
