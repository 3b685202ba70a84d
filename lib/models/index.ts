import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { gateway, type LanguageModel } from 'ai';
import { ScriptedModel } from './scripted';

/**
 * Picks the model from the environment (SPEC §8), in this order:
 * 1. `OPENAI_COMPATIBLE_BASE_URL` + `MODEL` — Ollama, vLLM, llama.cpp…
 * 2. `OPENAI_API_KEY` — OpenAI (`MODEL`, default gpt-5-mini)
 * 3. `ANTHROPIC_API_KEY` — Anthropic (`MODEL`, default claude-sonnet-4-5)
 * 4. `MODEL=provider/model` with `AI_GATEWAY_API_KEY` — the Vercel AI Gateway
 * 5. otherwise the offline scripted model `local/scripted` (`SCRIPTED_MODEL_DELAY_MS`: pause per word).
 *
 * @param env environment to read (default `process.env`)
 */
export function resolveModel(env: Record<string, string | undefined> = process.env): LanguageModel {
  const model = env.MODEL;
  if (env.OPENAI_COMPATIBLE_BASE_URL && model) {
    return createOpenAICompatible({ name: 'openai-compatible', baseURL: env.OPENAI_COMPATIBLE_BASE_URL, apiKey: env.OPENAI_COMPATIBLE_API_KEY })(model);
  }
  if (env.OPENAI_API_KEY) return createOpenAI({ apiKey: env.OPENAI_API_KEY })(model?.replace(/^openai\//, '') ?? 'gpt-5-mini');
  if (env.ANTHROPIC_API_KEY) {
    return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY })(model?.replace(/^anthropic\//, '') ?? 'claude-sonnet-4-5');
  }
  if (model && model !== 'local/scripted' && env.AI_GATEWAY_API_KEY) return gateway(model);
  // SCRIPTED_MODEL_DELAY_MS slows the scripted model's text down (demos, crash and reload tests).
  return new ScriptedModel({ delayMs: Number(env.SCRIPTED_MODEL_DELAY_MS ?? 0) });
}
