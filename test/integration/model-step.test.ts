import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createRuntime, newThreadId } from '../support/harness';
import { streamModel, textParts } from '../support/stream-model';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

type WarningLog = { warnings: unknown[]; provider?: string; model?: string };
const globals = globalThis as { AI_SDK_LOG_WARNINGS?: false | ((options: WarningLog) => void) };
afterEach(() => {
  delete globals.AI_SDK_LOG_WARNINGS;
});

describe('a model step (lib/agent/model-step.ts)', () => {
  it("logs the provider's warnings through the AI SDK's logger, as streamText does, and the run still answers", async () => {
    const logged: WarningLog[] = [];
    globals.AI_SDK_LOG_WARNINGS = (options) => logged.push(options);
    const warning = { type: 'unsupported', feature: 'temperature', details: 'ignored by this model' } as const;
    const model = streamModel(() => [{ type: 'stream-start', warnings: [warning] }, ...textParts('fine')]);
    const rt = await createRuntime({ model });
    closers.push(rt.close);

    const result = await rt.agent.generate('hi', { threadId: newThreadId(), resourceId: 'user-ada' });

    expect(result).toMatchObject({ finishReason: 'stop', text: 'fine' });
    expect(logged).toEqual([{ warnings: [warning], provider: model.provider, model: model.modelId }]);
  });

  it('logs nothing when the provider has no warnings', async () => {
    const logged: WarningLog[] = [];
    globals.AI_SDK_LOG_WARNINGS = (options) => logged.push(options);
    const rt = await createRuntime({ model: streamModel(() => textParts('fine')) });
    closers.push(rt.close);

    await rt.agent.generate('hi', { threadId: newThreadId(), resourceId: 'user-ada' });

    expect(logged).toEqual([]);
  });
});
