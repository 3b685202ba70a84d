import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkToolArgs,
  containsUnstorableText,
  MAX_TOOL_ARGS_BYTES,
  MAX_TOOL_ARGS_DEPTH,
  safeToolCallId,
  safeToolName,
  storableText,
  storableValue,
  TextDeltaRepair,
} from './model-output';

/** What PostgreSQL's jsonb refuses: NUL and lone surrogates (a well-formed JSON.stringify escapes them as \u….). */
const pgRefuses = (text: string) => /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

/** Any UTF-16 code unit, weighted towards the troublesome ones. */
const codeUnit = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }),
  fc.integer({ min: 0xd800, max: 0xdfff }),
  fc.constantFrom(0x7f, 0x85, 0x202e, 0x2066, 0xfffd),
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.integer({ min: 0, max: 0xffff }),
).map((unit) => String.fromCharCode(unit));
const anyString = fc.string({ unit: codeUnit, maxLength: 40 });

describe('storableText', () => {
  it('replaces NUL and lone surrogates with U+FFFD and keeps everything else', () => {
    expect(storableText('rec-\u0000')).toBe('rec-\uFFFD');
    expect(storableText('rec-\ud83d')).toBe('rec-\uFFFD');
    expect(storableText('cus-\udc00x')).toBe('cus-\uFFFDx');
    expect(storableText('ok 😀 \t\n\u0007')).toBe('ok 😀 \t\n\u0007');
  });

  it('property: the result is storable, as long, and unchanged when the input was storable', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const out = storableText(text);
        expect(pgRefuses(out)).toBe(false);
        expect(out).toHaveLength(text.length);
        if (!pgRefuses(text)) expect(out).toBe(text);
      }),
    );
  });
});

describe('TextDeltaRepair', () => {
  it('keeps a surrogate pair split across two deltas whole', () => {
    const repair = new TextDeltaRepair();
    expect(repair.push('hi \ud83d')).toBe('hi ');
    expect(repair.push('\ude00!')).toBe('😀!');
    expect(repair.end()).toBe('');
  });

  it('releases a high surrogate the stream never completed as U+FFFD', () => {
    const repair = new TextDeltaRepair();
    expect(repair.push('cut \ud83d')).toBe('cut ');
    expect(repair.end()).toBe('\uFFFD');
  });

  it('property: any split of any text repairs to storableText of the whole', () => {
    fc.assert(
      fc.property(anyString, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const deltas: string[] = [];
        let from = 0;
        for (const point of [...points, text.length]) {
          deltas.push(text.slice(from, point));
          from = point;
        }
        const repair = new TextDeltaRepair();
        const out = deltas.map((delta) => repair.push(delta)).join('') + repair.end();
        expect(out).toBe(storableText(text));
      }),
    );
  });
});

describe('checkToolArgs', () => {
  it("refuses the issue's inputs, naming the character and where it is", () => {
    const nul = checkToolArgs({ id: 'rec-\u0000' });
    expect(nul).toMatchObject({ ok: false, problem: expect.stringContaining('U+0000 (NUL) at $.id') });
    // The preview shows the character as a JSON escape, and is itself storable.
    expect(nul.ok === false && nul.shown).toBe('{"id":"rec-\\u0000"}');
    expect(checkToolArgs({ id: 'rec-\ud83d' })).toMatchObject({ ok: false, problem: expect.stringContaining('U+D83D') });
    expect(checkToolArgs({ customerId: 'cus-\udc00x' })).toMatchObject({ ok: false, problem: expect.stringContaining('U+DC00') });
  });

  it('refuses control and bidi characters, in values and in keys, but accepts tabs, newlines and emoji', () => {
    expect(checkToolArgs({ to: 'a@b.c\u001b[2J' }).ok).toBe(false);
    expect(checkToolArgs({ body: 'pay \u202Eevil' }).ok).toBe(false);
    expect(checkToolArgs({ ['k\u0000']: 1 })).toMatchObject({ ok: false, problem: expect.stringContaining('a key') });
    expect(checkToolArgs({ list: [{ deep: ['x\u0085'] }] })).toMatchObject({ ok: false, problem: expect.stringContaining('$.list[0].deep[0]') });
    expect(checkToolArgs({ body: 'line 1\n\tline 2 😀' })).toEqual({ ok: true, args: { body: 'line 1\n\tline 2 😀' } });
  });

  it('refuses args that are not JSON, too large or too deeply nested', () => {
    expect(checkToolArgs('{"id": "rec-1"', { unparsed: true })).toMatchObject({ ok: false, shown: '{"id": "rec-1"', problem: expect.stringContaining('not valid JSON') });
    const big = checkToolArgs({ text: 'x'.repeat(MAX_TOOL_ARGS_BYTES) });
    expect(big).toMatchObject({ ok: false, problem: expect.stringContaining(`larger than ${MAX_TOOL_ARGS_BYTES} bytes`) });
    expect(big.ok === false && big.shown.length).toBeLessThan(400);
    let deep: unknown = 'leaf';
    for (let level = 0; level < MAX_TOOL_ARGS_DEPTH; level += 1) deep = { next: deep };
    expect(checkToolArgs(deep).ok).toBe(true);
    expect(checkToolArgs({ next: deep })).toMatchObject({ ok: false, problem: expect.stringContaining('nested more than') });
  });

  it('survives nesting far past the stack without throwing', () => {
    let deep: unknown = [];
    for (let level = 0; level < 200_000; level += 1) deep = [deep];
    expect(checkToolArgs(deep)).toMatchObject({ ok: false, shown: '(too deeply nested to show)' });
  });

  it('never alters accepted args, and everything it shows is storable', () => {
    fc.assert(
      fc.property(fc.dictionary(anyString, fc.oneof(anyString, fc.integer(), fc.array(anyString, { maxLength: 3 }))), (args) => {
        const checked = checkToolArgs(args);
        if (checked.ok) {
          expect(checked.args).toBe(args);
          expect(containsUnstorableText(args)).toBe(false);
        } else {
          expect(pgRefuses(checked.shown) || pgRefuses(checked.problem)).toBe(false);
        }
      }),
    );
  });
});

describe('storableValue', () => {
  it('repairs strings and keys, drops what JSON drops, stringifies bigints', () => {
    const date = new Date('2026-01-02T03:04:05.000Z');
    expect(storableValue({ a: 'x\u0000', ['k\ud800']: [1, undefined, Infinity], big: 10n, at: date, skip: undefined, fn: () => 1 })).toEqual({
      ok: true,
      value: { a: 'x\uFFFD', ['k\uFFFD']: [1, null, null], big: '10', at: '2026-01-02T03:04:05.000Z' },
    });
    expect(storableValue(undefined)).toEqual({ ok: true, value: null });
    // What JSON does with -0 and a "__proto__" key (both found by the property below).
    expect(storableValue([-0])).toEqual({ ok: true, value: [0] });
    expect(Object.is((storableValue([-0]) as { value: number[] }).value[0], 0)).toBe(true);
    const proto = storableValue(JSON.parse('{"__proto__":{"x":1}}'));
    expect(proto.ok && JSON.stringify(proto.value)).toBe('{"__proto__":{"x":1}}');
  });

  it('refuses a cyclic value instead of throwing', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(storableValue(cyclic)).toMatchObject({ ok: false, problem: expect.stringContaining('refers to itself') });
    // A value seen twice without a cycle is fine.
    const shared = { x: 1 };
    expect(storableValue({ a: shared, b: shared })).toEqual({ ok: true, value: { a: { x: 1 }, b: { x: 1 } } });
  });

  it('property: whatever goes in, what comes out round-trips through JSON and holds nothing jsonb refuses', () => {
    fc.assert(
      fc.property(fc.jsonValue(), anyString, (value, text) => {
        const result = storableValue({ value, text });
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const json = JSON.stringify(result.value);
        expect(JSON.parse(json)).toEqual(result.value);
        expect(containsUnstorableText(result.value)).toBe(false);
      }),
    );
  });
});

describe('safe ids and names', () => {
  it("keeps a provider's ordinary id, replaces a duplicate or unsafe one", () => {
    expect(safeToolCallId('call_abc-123', new Set())).toBe('call_abc-123');
    expect(safeToolCallId('call_abc-123', new Set(['call_abc-123']))).toMatch(/^call_[0-9a-f]{32}$/);
    expect(safeToolCallId('', new Set())).toMatch(/^call_/);
    expect(safeToolCallId('id with spaces/\u0000', new Set())).toMatch(/^call_[0-9a-f]{32}$/);
    expect(safeToolName('delete-record', true)).toBe('delete-record');
    expect(safeToolName('no such tool\u0000', false)).toBe('invalid_tool_name');
  });
});
