import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { collect, createRuntime, newThreadId } from '../support/harness';
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

  it("streams a step's reasoning before its calls and keeps it, in the model's order, in the thread's memory", async () => {
    const rt = await createRuntime();
    closers.push(rt.close);
    const threadId = newThreadId();

    const run = await rt.agent.stream('/think cus-1 is the customer to look up.\n/tool lookup-customer {"customerId":"cus-1"}', { threadId, resourceId: 'user-ada' });
    const chunks = await collect(run.fullStream);

    const types = chunks.map((chunk) => chunk.type).filter((type) => type.startsWith('reasoning') || type === 'tool-call');
    expect(types).toEqual(['reasoning-start', 'reasoning-delta', 'reasoning-end', 'tool-call']);
    expect(chunks.find((chunk) => chunk.type === 'reasoning-delta')!.payload).toMatchObject({ text: 'cus-1 is the customer to look up.' });
    const assistant = await rt.db.message.findFirstOrThrow({ where: { threadId, role: 'assistant' }, orderBy: { seq: 'asc' } });
    expect((assistant.content as unknown as { type: string }[]).map((part) => part.type)).toEqual(['reasoning', 'tool-call']);
    expect((assistant.content as unknown as { text?: string }[])[0].text).toBe('cus-1 is the customer to look up.');
  });
});
