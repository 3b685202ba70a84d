import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callContext, describeCall, describeRedacted } from './describe';
import { createTool } from './tool';

const base = { id: 't', description: 'd', inputSchema: z.object({ n: z.number() }), execute: () => null };
const who = { threadId: 'th', resourceId: 'r', requestedBy: 'r' };

describe('describeCall', () => {
  it('keeps a valid description, cut to size, and drops an unknown risk', () => {
    const tool = createTool({ ...base, describe: ({ n }) => ({ title: `  n is ${n} `, summary: 'x'.repeat(2000), risk: 'extreme' as never }) });
    const out = describeCall(tool, { n: 2 })!;
    expect(out.title).toBe('n is 2');
    expect(out.summary).toHaveLength(1000);
    expect(out.risk).toBeUndefined();
  });

  it('answers null when describe throws, returns no title, or the tool has none', () => {
    expect(describeCall(createTool({ ...base, describe: () => { throw new Error('boom'); } }), { n: 1 })).toBeNull();
    expect(describeCall(createTool({ ...base, describe: () => ({ title: ' ' }) }), { n: 1 })).toBeNull();
    expect(describeCall(createTool(base), { n: 1 })).toBeNull();
  });
});

describe('describeRedacted', () => {
  const refund = {
    id: 'refund',
    description: 'd',
    inputSchema: z.object({ order: z.string(), amount: z.number().positive() }),
    execute: () => null,
    describe: ({ order, amount }: { order: string; amount: number | string }) => ({ title: `Refunds ${amount} on ${order}` }),
  };

  it('lets describe see the mask in place of each sensitive field, never the value', () => {
    const tool = createTool({ ...refund, sensitive: ['amount'] });
    expect(describeRedacted(tool, { order: 'o-1', amount: 271 }, '•••')?.title).toBe('Refunds ••• on o-1');
    expect(describeRedacted(createTool({ ...refund, sensitive: true }), { order: 'o-1', amount: 271 }, '•••')?.title).toBe('Refunds ••• on •••');
  });

  it('checks the real values first, and describes a tool without sensitive fields as describeCall does', () => {
    const tool = createTool({ ...refund, sensitive: ['amount'] });
    expect(describeRedacted(tool, { order: 'o-1', amount: -1 }, '•••')).toBeNull();
    expect(describeRedacted(createTool(refund), { order: 'o-1', amount: 271 }, '•••')?.title).toBe('Refunds 271 on o-1');
  });
});

describe('callContext', () => {
  it('returns the tool’s fields, at most 20, each label required', async () => {
    const tool = createTool({
      ...base,
      context: () => [{ label: '', value: 'x' }, ...Array.from({ length: 30 }, (_, i) => ({ label: `f${i}`, value: String(i) }))],
    });
    const { fields } = await callContext(tool, { n: 1 }, who);
    expect(fields).toHaveLength(20);
    expect(fields[0]).toEqual({ label: 'f0', value: '0' });
  });

  it('says so when the lookup fails, instead of showing nothing', async () => {
    const tool = createTool({ ...base, context: async () => { throw new Error('db down'); } });
    expect(await callContext(tool, { n: 1 }, who)).toEqual({ fields: [], error: 'The t tool could not look up its context.' });
  });
});
