import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { ScriptedModel } from '../../lib/models/scripted';

/** The scripted model, recording every prompt it is given (to assert on what the model reads). */
export class RecordingModel extends ScriptedModel {
  readonly prompts: LanguageModelV4Prompt[] = [];

  override async doStream(options: LanguageModelV4CallOptions) {
    this.prompts.push(structuredClone(options.prompt));
    return super.doStream(options);
  }

  override async doGenerate(options: LanguageModelV4CallOptions) {
    this.prompts.push(structuredClone(options.prompt));
    return super.doGenerate(options);
  }

  /** The tool results the model has read, across all calls. */
  toolResultsSeen() {
    return this.prompts.flatMap((prompt) =>
      prompt.flatMap((message) =>
        message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : [],
      ),
    );
  }
}
