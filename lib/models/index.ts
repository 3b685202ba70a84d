import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { createGateway, wrapLanguageModel, type LanguageModel } from 'ai';
import { env, type Env } from '@/lib/env';
import { ScriptedModel } from './scripted';

/**
 * The model the environment selects (behaviour §8; which variables pick which provider: see
 * `resolveModelSetting` in lib/env.ts). Keys and endpoints are passed explicitly, so the provider
 * packages never read the environment on their own.
 *
 * Reasoning (behaviour §8 "Reasoning models"): `MODEL_REASONING` (off/low/medium/high) becomes the
 * AI SDK's `reasoning` call setting, which each provider maps to what its model allows (Anthropic:
 * a thinking budget or effort; OpenAI: reasoning effort). OpenAI requests are sent with
 * `store: false`: the thread's memory lives in this server's database, so a reasoning model's
 * items come back with their encrypted content (the provider then asks for
 * `reasoning.encrypted_content`) instead of as references to responses OpenAI may have dropped.
 *
 * @param config the validated environment (default: this process's)
 */
export function resolveModel(config: Pick<Env, 'model' | 'SCRIPTED_MODEL_DELAY_MS'> & Partial<Pick<Env, 'MODEL_REASONING'>> = env()): LanguageModel {
  const setting = config.model;
  const reasoning = config.MODEL_REASONING === 'off' ? 'none' : config.MODEL_REASONING;
  switch (setting.provider) {
    case 'openai-compatible':
      return withSettings(createOpenAICompatible({ name: 'openai-compatible', baseURL: setting.baseURL, apiKey: setting.apiKey })(setting.modelId), { reasoning });
    case 'openai':
      return withSettings(createOpenAI({ apiKey: setting.apiKey, baseURL: setting.baseURL })(setting.modelId), { reasoning, providerOptions: { openai: { store: false } } });
    case 'anthropic':
      return withSettings(createAnthropic({ apiKey: setting.apiKey, baseURL: setting.baseURL })(setting.modelId), { reasoning });
    case 'gateway':
      return withSettings(createGateway({ apiKey: setting.apiKey })(setting.modelId), { reasoning });
    case 'local':
      return new ScriptedModel({ delayMs: config.SCRIPTED_MODEL_DELAY_MS });
  }
}

/** `model` with call settings of this server's configuration; a caller's own setting wins. */
function withSettings(model: LanguageModelV4, settings: Pick<LanguageModelV4CallOptions, 'reasoning' | 'providerOptions'>): LanguageModelV4 {
  if (settings.reasoning === undefined && settings.providerOptions === undefined) return model;
  const middleware: LanguageModelV4Middleware = {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => ({
      ...params,
      reasoning: params.reasoning ?? settings.reasoning,
      providerOptions: mergeProviderOptions(settings.providerOptions, params.providerOptions),
    }),
  };
  return wrapLanguageModel({ model, middleware });
}

function mergeProviderOptions(base: LanguageModelV4CallOptions['providerOptions'], own: LanguageModelV4CallOptions['providerOptions']) {
  if (!base) return own;
  const merged = { ...base };
  for (const [provider, options] of Object.entries(own ?? {})) merged[provider] = { ...merged[provider], ...options };
  return merged;
}
