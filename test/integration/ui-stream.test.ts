import { afterAll, describe, expect, it } from 'vitest';
import { toUIChunks } from '../../lib/ui-stream/map';
import { collect, createRuntime, newThreadId } from '../support/harness';

const user = { id: 'user-ada', role: 'user' as const };
let close: () => Promise<void> = async () => {};
afterAll(() => close());

describe('UI message stream mapping', () => {
  it('the resumed data part has the same type and id, repeats the full original payload and adds resumed: true', async () => {
    const rt = await createRuntime();
    close = rt.close;
    const paused = await rt.agent.stream('delete record rec-12', { threadId: newThreadId(), resourceId: user.id });
    const before = (await collect(paused.fullStream)).flatMap((chunk) => toUIChunks(chunk, paused.runId));
    const cont = await rt.agent.declineToolCall({ runId: paused.runId, actor: user, reason: 'not now' });
    const after = (await collect(cont.fullStream)).flatMap((chunk) => toUIChunks(chunk, paused.runId));

    const card = before.find((chunk) => chunk.type === 'data-tool-call-approval');
    const resumed = after.filter((chunk) => chunk.type === 'data-tool-call-approval');
    expect(card).toBeDefined();
    expect(resumed).toHaveLength(1);
    if (card?.type !== 'data-tool-call-approval' || resumed[0].type !== 'data-tool-call-approval') throw new Error('unreachable');
    expect(resumed[0].id).toBe(card.id);
    expect(resumed[0].data).toEqual({
      ...(card.data as object),
      resumed: true,
      decision: { approved: false, reason: 'not now', by: user.id, at: expect.any(String) },
    });
    // Standard tool parts, so stock AI SDK components render them.
    expect(before.map((chunk) => chunk.type)).toContain('tool-input-available');
    expect(after.map((chunk) => chunk.type)).toContain('tool-output-denied');
    // The continuation streams into the same assistant message.
    expect(after[0]).toEqual({ type: 'start', messageId: paused.messageId });
  });
});
