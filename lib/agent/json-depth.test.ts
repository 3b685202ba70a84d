import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';

/** `[[[…]]]` nested `depth` levels deep. */
const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('exceedsJsonDepth', () => {
  it('answers for 100,000 levels without overflowing the stack', () => {
    expect(exceedsJsonDepth(nested(100_000))).toBe(true);
    expect(exceedsJsonDepth({ a: { b: nested(100_000) } })).toBe(true);
  });

  it('counts arrays and objects alike; scalars are depth 0', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth({ a: [{ b: 'x' }], c: 1 }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: [{ b: 'x' }], c: 1 }, 2)).toBe(true);
    expect(exceedsJsonDepth('text', 0)).toBe(false);
    expect(exceedsJsonDepth(null, 0)).toBe(false);
  });
});
