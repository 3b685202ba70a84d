import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createGateway, type LanguageModel } from 'ai';
import { env, type Env } from '@/lib/env';
import { ScriptedModel } from './scripted';

/**
 * The model the environment selects (behaviour §8; which variables pick which provider: see
 * `resolveModelSetting` in lib/env.ts). Keys and endpoints are passed explicitly, so the provider
 * packages never read the environment on their own.
 *
 * @param config the validated environment (default: this process's)
 */
export function resolveModel(config: Pick<Env, 'model' | 'SCRIPTED_MODEL_DELAY_MS'> = env()): LanguageModel {
  const setting = config.model;
  switch (setting.provider) {
    case 'openai-compatible':
      return createOpenAICompatible({ name: 'openai-compatible', baseURL: setting.baseURL, apiKey: setting.apiKey })(setting.modelId);
    case 'openai':
      return createOpenAI({ apiKey: setting.apiKey, baseURL: setting.baseURL })(setting.modelId);
    case 'anthropic':
      return createAnthropic({ apiKey: setting.apiKey, baseURL: setting.baseURL })(setting.modelId);
    case 'gateway':
      return createGateway({ apiKey: setting.apiKey })(setting.modelId);
    case 'local':
      return new ScriptedModel({ delayMs: config.SCRIPTED_MODEL_DELAY_MS });
  }
}
