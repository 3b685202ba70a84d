import type { Experimental_DecisionModelV4, Experimental_DecisionModelV4CallOptions, Experimental_DecisionModelV4Result } from '@ai-sdk/provider';

/** Words in tool or argument names that make a call destructive, irreversible or about money. */
const RISKY = /(delete|remove|drop|destroy|purge|wipe|erase|send|email|mail|publish|refund|pay|charge|transfer|withdraw|amount|price|cost|total|card|iban|password|secret)/i;
/** Words of calls that only read. */
const READING = /(get|find|lookup|look-up|list|read|search|show|weather|fetch|view)/i;

/**
 * The offline decision model of the scripted setup: answers the approval classifier's boolean
 * question deterministically from the tool name and argument names it is sent (no values):
 * destructive verbs and money score 0.9, reading 0.1, anything else 0.5. Its rationale says which
 * word decided, in `providerMetadata.scripted.rationale`. It refuses (the AI SDK's refusal answer)
 * when the state carries no tool name.
 */
export class ScriptedDecisionModel implements Experimental_DecisionModelV4 {
  readonly specificationVersion = 'v4' as const;
  readonly provider = 'local';
  readonly modelId = 'scripted-decision';
  readonly supportedQuestionTypes = ['boolean'] as const;

  async doDecide(options: Experimental_DecisionModelV4CallOptions): Promise<Experimental_DecisionModelV4Result> {
    const state = options.state.find((part) => part.type === 'json')?.value as { toolName?: unknown; argumentNames?: unknown } | undefined;
    const toolName = typeof state?.toolName === 'string' ? state.toolName : null;
    const names = Array.isArray(state?.argumentNames) ? state.argumentNames.filter((name): name is string => typeof name === 'string') : [];
    const answers: Experimental_DecisionModelV4Result['answers'] = {};
    let rationale = '';
    for (const id of Object.keys(options.questions)) {
      if (!toolName) {
        answers[id] = { type: 'refusal' };
        continue;
      }
      const risky = [toolName, ...names].map((word) => word.match(RISKY)?.[0]).find(Boolean);
      const reading = toolName.match(READING)?.[0];
      const probability = risky ? 0.9 : reading ? 0.1 : 0.5;
      rationale = risky ? `"${risky}" suggests a destructive or money-moving action` : reading ? `"${reading}" suggests it only reads` : 'nothing in the names says either way';
      answers[id] = { type: 'boolean', probability };
    }
    return { answers, warnings: [], providerMetadata: { scripted: { rationale } }, response: { modelId: this.modelId, timestamp: new Date(0) } };
  }
}
