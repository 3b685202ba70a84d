import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { Experimental_DecisionModelV4 } from '@ai-sdk/provider';
import { createGateway } from 'ai';
import { env, type Env } from '@/lib/env';
import { ScriptedDecisionModel } from './scripted-decision';

/**
 * The decision model for `classify` policy rules, from the same environment selection as the chat
 * model (lib/env.ts `resolveModelSetting`): the provider's decision model of the same id (OpenAI,
 * Anthropic, the AI Gateway), or the offline scripted one. An OpenAI-compatible server has no
 * decision API in the AI SDK, so there is none: the classifier then asks the chat model through its
 * language-model adapter (structured output; lib/policies/classify.ts).
 */
export function resolveDecisionModel(config: Pick<Env, 'model'> = env()): Experimental_DecisionModelV4 | null {
  const setting = config.model;
  switch (setting.provider) {
    case 'openai':
      return createOpenAI({ apiKey: setting.apiKey, baseURL: setting.baseURL }).decisionModel(setting.modelId);
    case 'anthropic':
      return createAnthropic({ apiKey: setting.apiKey, baseURL: setting.baseURL }).decisionModel(setting.modelId);
    case 'gateway':
      return createGateway({ apiKey: setting.apiKey }).decisionModel(setting.modelId);
    case 'openai-compatible':
      return null;
    case 'local':
      return new ScriptedDecisionModel();
  }
}
