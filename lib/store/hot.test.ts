import { describe, expect, it } from 'vitest';
import { statementName } from './hot';

describe('statementName', () => {
  it('is the same for the same text and differs for another text', () => {
    const a = statementName('SELECT $1');
    expect(a).toMatch(/^cs_[0-9a-f]{24}$/);
    expect(statementName('SELECT $1')).toBe(a);
    expect(statementName('SELECT $1, $2')).not.toBe(a);
    expect(statementName('SELECT $1 ')).not.toBe(a);
  });
});
