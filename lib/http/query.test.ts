import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseLeavingOut, queryText } from './query';

describe('query text from links', () => {
  it('refuses a NUL anywhere and accepts everything else within its length', () => {
    expect(queryText(5).safeParse('a\0b').success).toBe(false);
    expect(queryText(5).safeParse('%00').success).toBe(true);
    expect(queryText(5).safeParse('ünï ✓').success).toBe(true);
    expect(queryText(5).safeParse('toolong').success).toBe(false);
  });

  it('leaves out the fields that cannot be read and keeps the rest', () => {
    const schema = z.object({ toolName: queryText(20).optional(), from: z.iso.date().optional(), limit: z.coerce.number().default(50) });
    expect(parseLeavingOut(schema, { toolName: 'send-email', from: '2026-11-30' })).toEqual({ data: { toolName: 'send-email', from: '2026-11-30', limit: 50 }, leftOut: [] });
    expect(parseLeavingOut(schema, { toolName: 'a\0', from: 'someday', limit: '7' })).toEqual({ data: { limit: 7 }, leftOut: ['toolName', 'from'] });
    expect(parseLeavingOut(schema, { toolName: 'send-email', from: 'someday' })).toEqual({ data: { toolName: 'send-email', limit: 50 }, leftOut: ['from'] });
  });

  it('throws when what is refused is not a field of the input', () => {
    const schema = z.object({ n: z.number() });
    expect(() => parseLeavingOut(schema, {})).toThrow();
  });
});
