import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprintToolCall } from './fingerprint';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** The fingerprint of `{ toolName, args }` whose args canonicalise to `canonicalArgs`. */
const expected = (toolName: string, canonicalArgs: string) => sha256(`{"args":${canonicalArgs},"toolName":${JSON.stringify(toolName)}}`);

describe('fingerprintToolCall', () => {
  it('is the sha256 of the RFC 8785 canonical JSON, independent of key order', () => {
    const a = fingerprintToolCall({ toolName: 'issue-refund', args: { orderId: 'ord-1', amount: 250 } });
    const b = fingerprintToolCall({ toolName: 'issue-refund', args: { amount: 250, orderId: 'ord-1' } });
    expect(a).toBe(b);
    // RFC 8785: keys sorted, no whitespace.
    const canonical = '{"args":{"amount":250,"orderId":"ord-1"},"toolName":"issue-refund"}';
    expect(a).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(fingerprintToolCall({ toolName: 'issue-refund', args: { orderId: 'ord-1', amount: 251 } })).not.toBe(a);
  });

  it('is 64 lowercase hex characters', () => {
    expect(fingerprintToolCall({ toolName: 'delete-record', args: { id: 'rec-1' } })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sorts keys at every depth but keeps array order', () => {
    const nested = { b: { y: [3, { q: 1, p: 2 }], x: 'x' }, a: null };
    const reordered = { a: null, b: { x: 'x', y: [3, { p: 2, q: 1 }] } };
    const fingerprint = fingerprintToolCall({ toolName: 't', args: nested });
    expect(fingerprint).toBe(expected('t', '{"a":null,"b":{"x":"x","y":[3,{"p":2,"q":1}]}}'));
    expect(fingerprintToolCall({ toolName: 't', args: reordered })).toBe(fingerprint);
    expect(fingerprintToolCall({ toolName: 't', args: { a: null, b: { x: 'x', y: [{ p: 2, q: 1 }, 3] } } })).not.toBe(fingerprint);
  });

  it('differs for a different tool name with the same args', () => {
    const args = { id: 'rec-1' };
    expect(fingerprintToolCall({ toolName: 'delete-record', args })).toBe(expected('delete-record', '{"id":"rec-1"}'));
    expect(fingerprintToolCall({ toolName: 'archive-record', args })).toBe(expected('archive-record', '{"id":"rec-1"}'));
    expect(fingerprintToolCall({ toolName: 'delete-record', args })).not.toBe(fingerprintToolCall({ toolName: 'archive-record', args }));
  });

  it('writes numbers the RFC 8785 way: 1.0 is 1, -0 is 0, exponents as ECMAScript prints them', () => {
    const parsed = (json: string) => fingerprintToolCall({ toolName: 't', args: JSON.parse(json) });
    expect(parsed('{"n":1.0}')).toBe(expected('t', '{"n":1}'));
    expect(parsed('{"n":1}')).toBe(parsed('{"n":1.0}'));
    expect(parsed('{"n":-0}')).toBe(expected('t', '{"n":0}'));
    expect(parsed('{"n":-0.0}')).toBe(parsed('{"n":0}'));
    expect(parsed('{"n":4.50}')).toBe(expected('t', '{"n":4.5}'));
    expect(parsed('{"n":1E30}')).toBe(expected('t', '{"n":1e+30}'));
    expect(parsed('{"n":2e-3}')).toBe(expected('t', '{"n":0.002}'));
    expect(parsed('{"n":0.000000000000000000000000001}')).toBe(expected('t', '{"n":1e-27}'));
    expect(parsed('{"n":333333333.33333329}')).toBe(expected('t', '{"n":333333333.3333333}'));
    expect(parsed('{"n":1}')).not.toBe(parsed('{"n":"1"}'));
  });

  it('matches the RFC 8785 example (section 3.2.4): numbers, string escapes and literals', () => {
    const input = String.raw`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`;
    const output = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    expect(fingerprintToolCall({ toolName: 'rfc', args: JSON.parse(input) })).toBe(expected('rfc', output));
  });

  it('sorts keys by UTF-16 code units, not code points (RFC 8785 section 3.2.3 example)', () => {
    const args = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // The emoji (surrogates D83D DE00) sorts before U+FB33 though its code point U+1F600 is larger.
    const canonical =
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}';
    expect(fingerprintToolCall({ toolName: 't', args })).toBe(expected('t', canonical));
  });

  it('hashes the UTF-8 bytes of text as given, without Unicode normalisation', () => {
    expect(fingerprintToolCall({ toolName: 't', args: { name: 'Zoë' } })).toBe(expected('t', '{"name":"Zoë"}'));
    // "é" precomposed (U+00E9) and decomposed (e + U+0301) are different args.
    expect(fingerprintToolCall({ toolName: 't', args: { name: '\u00e9' } })).not.toBe(fingerprintToolCall({ toolName: 't', args: { name: 'e\u0301' } }));
  });

  it('treats missing args as null', () => {
    expect(fingerprintToolCall({ toolName: 't', args: undefined })).toBe(expected('t', 'null'));
    expect(fingerprintToolCall({ toolName: 't', args: null })).toBe(expected('t', 'null'));
  });

  it('refuses args that are not JSON: NaN, Infinity, a lone surrogate, a cycle', () => {
    expect(() => fingerprintToolCall({ toolName: 't', args: { n: Number.NaN } })).toThrow(/NaN/);
    expect(() => fingerprintToolCall({ toolName: 't', args: { n: Number.POSITIVE_INFINITY } })).toThrow(/Infinity/);
    expect(() => fingerprintToolCall({ toolName: 't', args: { s: '\ud800' } })).toThrow(/surrogate/i);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => fingerprintToolCall({ toolName: 't', args: cycle })).toThrow(/Circular/);
  });
});
