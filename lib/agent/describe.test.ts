import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callContext, describeCall } from './describe';
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
