import { experimental_streamLanguageModelCall as streamLanguageModelCall, jsonSchema, NoSuchToolError, RetryError, type ModelMessage, type ProviderMetadata, type ToolSet } from 'ai';
import { logWarnings, prepareRetries, resolveLanguageModel } from 'ai/internal';
import { z } from 'zod';
import type { RunContext } from './context';
import { emit } from './events';
import { ANSWER_BROKE_OFF, classifyModelError, CUT_OFF_IN_TOOL_CALL, ModelCallError, ModelIdleTimeoutError, stoppedAnswering, TEXT_CUT_OFF } from './failure';
import { DEFAULT_MODEL_IDLE_TIMEOUT_MS, IdleWatch } from './idle';
import { checkToolArgs, safeToolCallId, safeToolName, storablePreview, storableText, storableValue, TextDeltaRepair } from './model-output';
import type { AgentSpec } from './spec';
import type { StepCall } from './store';

/** What one model step asked for. */
export interface ModelStepResult {
  /** The step's tool calls, in the model's order (ids and names made safe). */
  calls: StepCall[];
  /** Calls whose args cannot be used, by id, with the error the model will read. */
  refused: Map<string, string>;
  /** Whether the provider's content filter, or the model itself, declined to answer. */
  declined: boolean;
  /** Whether the output-token limit cut the (text) answer off. */
  cutOff: boolean;
}

/**
 * One model call through the AI SDK's single-call primitive (`experimental_streamLanguageModelCall`:
 * the SDK's prompt conversion, tool preparation and tool-call parsing, without streamText's step
 * loop, tool execution and stream plumbing, which this runtime does itself), retried as streamText
 * retries it (`maxRetries`, exponential backoff that respects the provider's retry headers). Tools
 * are declared but executed by us. This is the runtime's boundary for model output
 * (model-output.ts): text deltas are repaired, tool-call ids and names made safe, and calls whose
 * args cannot be used are returned in `refused` with the error the model will read. Their args
 * appear as a storable preview in chunks and as `{}` in the model history (every provider accepts
 * an empty object; the error says what was wrong).
 *
 * A request that receives nothing for `spec.modelIdleTimeoutMs` (default 60 s) is aborted (IdleWatch,
 * combined with `ctx.abortSignal`) and fails as "the model provider stopped answering"; before the
 * answer started, that counts as a retryable failure.
 *
 * Reasoning parts are kept in the assistant message with their provider metadata, in the model's
 * order, so the next request carries them back as the provider requires (behaviour §8). A stream
 * without its finish drops the step's calls (even complete ones); an Anthropic answer whose
 * `message_delta` gave its stop reason counts as finished without `message_stop`. An answer the
 * output-token limit cut off inside a tool call ends the step (nothing runs); cut-off text is
 * returned with `cutOff` and marked by a MODEL_OUTPUT_LIMIT error chunk.
 *
 * @throws ModelCallError when the provider fails, stops answering, its answer breaks off, or the
 *   output limit cut a tool call off (classified, failure.ts: MODEL_PROVIDER_*, MODEL_OUTPUT_LIMIT)
 */
export async function modelStep(ctx: RunContext): Promise<ModelStepResult> {
  const { state } = ctx;
  // A stall before the answer starts is retried like a 5xx; one in the middle of it ends the step.
  const { retry } = prepareRetries({
    maxRetries: ctx.spec.maxRetries,
    abortSignal: ctx.abortSignal,
    additionalRetryableError: (error) => error instanceof ModelIdleTimeoutError,
  });
  const idleMs = ctx.spec.modelIdleTimeoutMs ?? DEFAULT_MODEL_IDLE_TIMEOUT_MS;
  let idle: IdleWatch | undefined;
  const call = () =>
    retry(() => {
      idle?.stop();
      // Each attempt has its own idle timeout, combined with the caller's abort signal (Stop).
      idle = new IdleWatch(idleMs, ctx.abortSignal);
      return streamLanguageModelCall({
        model: ctx.spec.model,
        system: ctx.spec.instructions,
        messages: state.messages,
        tools: declaredTools(ctx.spec.tools),
        abortSignal: idle.signal,
        includeRawChunks: true,
      });
    });
  const calls: StepCall[] = [];
  const refused = new Map<string, string>();
  const content: Exclude<ModelMessage & { role: 'assistant' }, { content: string }>['content'] = [];
  const textIds = new Map<string, string>();
  const texts = new Map<string, string>();
  const repairs = new Map<string, TextDeltaRepair>();
  const takenIds = toolCallIdsOf(state.messages);
  const reasoning = new Map<string, ReasoningBlock>();
  let finishReason: string | undefined;
  let rawFinishReason: string | undefined;
  let stopReason: string | undefined;
  let toolStarted = false;
  ctx.lastText = '';
  // A reasoning block keeps its text and provider metadata (Anthropic's signature or redacted
  // data, OpenAI's item id and encrypted content) exactly: the provider checks them when the
  // history comes back with the step's tool results (behaviour §8).
  const endReasoning = (providerId: string) => {
    const block = reasoning.get(providerId)!;
    reasoning.delete(providerId);
    emit(ctx, 'reasoning-end', { id: block.id });
    // Stored as other text is (model-output.ts); a provider's signature never covers a NUL or a lone surrogate.
    const metadata = block.metadata && storableValue(block.metadata);
    const providerOptions = metadata?.ok ? { providerOptions: metadata.value as ProviderMetadata } : {};
    content.push({ type: 'reasoning', text: storableText(block.text), ...providerOptions });
  };
  // A text part is opened on its first character: a stream that breaks before any leaves no empty part.
  const opened = new Set<string>();
  const pushText = (id: string, text: string) => {
    if (!opened.has(id)) {
      opened.add(id);
      emit(ctx, 'text-start', { id });
    }
    texts.set(id, texts.get(id)! + text);
    emit(ctx, 'text-delta', { id, text });
  };
  const endText = (id: string) => {
    const rest = repairs.get(id)?.end();
    if (rest) pushText(id, rest);
    repairs.delete(id);
    if (opened.has(id)) emit(ctx, 'text-end', { id });
    const text = texts.get(id)!;
    if (text) {
      content.push({ type: 'text', text });
      ctx.lastText += text;
    }
  };
  try {
    const { stream } = await call();
    for await (const part of stream) {
      idle!.touch();
      switch (part.type) {
        case 'text-start': {
          const id = `${ctx.run.id.slice(0, 8)}-t${state.textPartCounter++}`;
          textIds.set(part.id, id);
          texts.set(id, '');
          repairs.set(id, new TextDeltaRepair());
          break;
        }
        case 'text-delta': {
          const id = textIds.get(part.id);
          if (!id || !part.text) break;
          const text = repairs.get(id)!.push(part.text);
          if (text) pushText(id, text);
          break;
        }
        case 'text-end': {
          const id = textIds.get(part.id);
          if (id && repairs.has(id)) endText(id);
          break;
        }
        case 'reasoning-start': {
          const id = `${ctx.run.id.slice(0, 8)}-r${state.textPartCounter++}`;
          reasoning.set(part.id, { id, text: '', metadata: mergeMetadata(undefined, part.providerMetadata) });
          emit(ctx, 'reasoning-start', { id });
          break;
        }
        case 'reasoning-delta': {
          const block = reasoning.get(part.id);
          if (!block) break;
          block.metadata = mergeMetadata(block.metadata, part.providerMetadata);
          block.text += part.text;
          if (part.text) emit(ctx, 'reasoning-delta', { id: block.id, text: storableText(part.text) });
          break;
        }
        case 'reasoning-end': {
          const block = reasoning.get(part.id);
          if (!block) break;
          block.metadata = mergeMetadata(block.metadata, part.providerMetadata);
          endReasoning(part.id);
          break;
        }
        case 'tool-input-start':
          toolStarted = true;
          break;
        case 'tool-call': {
          const toolCallId = safeToolCallId(part.toolCallId, takenIds);
          takenIds.add(toolCallId);
          const known = ctx.spec.tools.has(part.toolName);
          const toolName = safeToolName(part.toolName, known);
          const unparsed = part.invalid === true && !NoSuchToolError.isInstance(part.error);
          const checked = checkToolArgs(part.input, { unparsed });
          if (checked.ok) {
            calls.push({ toolCallId, toolName, args: checked.args });
          } else {
            calls.push({ toolCallId, toolName, args: checked.shown });
            refused.set(toolCallId, checked.problem);
          }
          if (!known && toolName !== part.toolName) {
            refused.set(toolCallId, `There is no tool named ${JSON.stringify(storablePreview(part.toolName))}; nothing was run.`);
          }
          // The history keeps what every provider can replay: an object (Anthropic requires one).
          const replayable = checked.ok && isPlainObject(checked.args) ? checked.args : {};
          content.push({ type: 'tool-call', toolCallId, toolName, input: replayable });
          break;
        }
        case 'model-call-start':
          // What streamText would log: settings the provider ignored, deprecations (AI_SDK_LOG_WARNINGS).
          if (part.warnings.length > 0) {
            const model = resolveLanguageModel(ctx.spec.model);
            logWarnings({ warnings: part.warnings, provider: model.provider, model: model.modelId });
          }
          break;
        case 'model-call-end':
          finishReason = part.finishReason;
          rawFinishReason = part.rawFinishReason;
          break;
        case 'raw':
          // Anthropic's stop reason arrives in `message_delta`: an answer that has it is complete,
          // even when the stream then ends without `message_stop` (the package calls that interrupted).
          stopReason = anthropicStopReason(part.rawValue) ?? stopReason;
          break;
        case 'error':
          throw part.error;
        default:
          break;
      }
    }
  } catch (error) {
    // Close what was streaming, so the partial answer shows as text (live and after a reload).
    for (const id of [...repairs.keys()]) endText(id);
    for (const id of [...reasoning.keys()]) emit(ctx, 'reasoning-end', { id: reasoning.get(id)!.id });
    if (error instanceof ModelCallError) throw error;
    // Whatever the aborted request threw, a fired idle timeout is what happened.
    const failure = idle?.fired && !RetryError.isInstance(error) ? stoppedAnswering(idleMs) : classifyModelError(error);
    throw new ModelCallError(failure, { cause: error });
  } finally {
    idle?.stop();
  }
  for (const id of [...repairs.keys()]) endText(id);
  for (const id of [...reasoning.keys()]) endReasoning(id);
  if (finishReason === 'interrupted' && stopReason) {
    finishReason = ANTHROPIC_STOP[stopReason] ?? 'other';
    rawFinishReason = stopReason;
  }
  // A stream that stopped without its finish (a cut connection) is not an answer, in every
  // protocol: its tool calls, even complete ones, are dropped and nothing runs.
  if (finishReason === 'interrupted' || finishReason === 'error') {
    throw new ModelCallError(ANSWER_BROKE_OFF);
  }
  // Cut off by the output limit inside a tool call: not "invalid JSON, call again" (the model
  // would be cut off again, step after step); the step ends and nothing runs.
  const cutOff = finishReason === 'length';
  if (cutOff && (calls.length > 0 || toolStarted)) throw new ModelCallError(CUT_OFF_IN_TOOL_CALL);
  if (content.length > 0) state.messages.push({ role: 'assistant', content });
  if (cutOff) emit(ctx, 'error', { message: TEXT_CUT_OFF, code: 'MODEL_OUTPUT_LIMIT' });
  const declined = finishReason === 'content-filter';
  if (declined) {
    // A model's own refusal (Anthropic `stop_reason: refusal`, OpenAI `refusal`) is named as such.
    const message = /refus/i.test(rawFinishReason ?? '')
      ? 'The model refused to answer this request.'
      : 'The model declined to answer this request (its provider’s content filter).';
    emit(ctx, 'error', { message, code: 'MODEL_REFUSED' });
  }
  return { calls, refused, declined, cutOff };
}

/** Anthropic stop reasons as the AI SDK's finish reasons (for an answer whose `message_stop` never came). */
const ANTHROPIC_STOP: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content-filter',
};

/** The stop reason of an Anthropic `message_delta` event, if `raw` is one. */
function anthropicStopReason(raw: unknown): string | undefined {
  const event = raw as { type?: unknown; delta?: { stop_reason?: unknown } } | null;
  const reason = event?.type === 'message_delta' ? event.delta?.stop_reason : undefined;
  return typeof reason === 'string' ? reason : undefined;
}

const declared = new WeakMap<AgentSpec['tools'], ToolSet>();

/**
 * The agent's tools as the model sees them: name, description and JSON Schema, without `execute`
 * or validation (the runtime validates, asks for approval and executes). Built once per agent.
 */
function declaredTools(tools: AgentSpec['tools']): ToolSet {
  let set = declared.get(tools);
  if (!set) {
    set = {};
    for (const tool of tools.values()) {
      set[tool.id] = { description: tool.description, inputSchema: jsonSchema(z.toJSONSchema(tool.inputSchema) as never) };
    }
    declared.set(tools, set);
  }
  return set;
}

/** Ids of every tool call in `messages` (a new call must not reuse one: results are matched by id). */
function toolCallIdsOf(messages: ModelMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if ((message.role !== 'assistant' && message.role !== 'tool') || typeof message.content === 'string') continue;
    for (const part of message.content) if ('toolCallId' in part) ids.add(part.toolCallId);
  }
  return ids;
}

/** One reasoning block of a step while it streams: our part id, its text, the provider's metadata. */
interface ReasoningBlock {
  id: string;
  text: string;
  metadata?: ProviderMetadata;
}

/** Provider metadata of a reasoning block so far, with a later part's merged in per provider (a signature arrives last). */
function mergeMetadata(base: ProviderMetadata | undefined, next: ProviderMetadata | undefined): ProviderMetadata | undefined {
  if (!next) return base;
  const merged: ProviderMetadata = { ...base };
  for (const [provider, values] of Object.entries(next)) merged[provider] = { ...merged[provider], ...values };
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

