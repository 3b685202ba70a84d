import type { LanguageModelV4CallOptions, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
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

/**
 * A recording model that numbers its tool call ids per response (`call_0`, `call_1`, …), as some
 * OpenAI-compatible servers do: the same ids recur in every run and every sub-agent run.
 */
export class RepeatingIdsModel extends RecordingModel {
  override async doStream(options: LanguageModelV4CallOptions) {
    const result = await super.doStream(options);
    let next = 0;
    const renumber = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      transform(part, controller) {
        controller.enqueue(part.type === 'tool-call' ? { ...part, toolCallId: `call_${next++}` } : part);
      },
    });
    return { ...result, stream: result.stream.pipeThrough(renumber) };
  }
}
