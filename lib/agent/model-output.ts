import { randomUUID } from 'node:crypto';
import { exceedsJsonDepth } from './json-depth';

/**
 * The runtime's boundary for what a model (or a tool) hands back: everything that crosses it is
 * something PostgreSQL can store and a provider can replay. PostgreSQL's `jsonb` and `text` refuse
 * U+0000 and lone UTF-16 surrogates (a half emoji), so one such character in a text delta, a tool
 * argument or a tool result would otherwise abort the write that carries it — and the whole run.
 *
 * Two policies, on purpose:
 * - **Text and results are repaired**: nobody approves them, so a NUL or a lone surrogate becomes
 *   U+FFFD (the Unicode replacement character), visibly, and the run goes on.
 * - **Arguments are refused, never repaired**: a person may approve them, and the fingerprint they
 *   approve covers the exact args. Quietly altering args would make a reviewer approve something
 *   the model did not ask for, or let the tool run with values nobody saw. So a call whose args hold
 *   such characters, or invisible controls that can make text read differently than it is, or that
 *   are not JSON, too large or too deeply nested, fails as that call: the model reads a tool error
 *   and may try again; nothing runs and nothing reaches a reviewer.
 */

/** Largest tool-call arguments accepted from a model, in bytes of UTF-8 JSON. */
export const MAX_TOOL_ARGS_BYTES = 8 * 1024;
/** Deepest nesting of objects/arrays accepted in tool-call arguments (the top-level object is depth 1). */
export const MAX_TOOL_ARGS_DEPTH = 16;
/** Deepest nesting accepted in a tool result or suspend payload (deeper values cannot be stored). */
const MAX_VALUE_DEPTH = 64;
/** How much of refused arguments is shown (on the card and in the event log), in characters. */
const REFUSED_ARGS_PREVIEW_CHARS = 300;

const REPLACEMENT = '\uFFFD';

/** NUL or a lone surrogate: what PostgreSQL cannot store. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Characters refused inside tool arguments: the unstorable ones, control characters other than tab,
 * line feed and carriage return (C0, DEL, C1), and the bidirectional embedding/override/isolate
 * controls (U+202A–U+202E, U+2066–U+2069) that can make approved text read differently from what
 * the tool receives (CVE-2021-42574, "Trojan Source").
 */
const REFUSED_IN_ARGS =
  /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Tool-call ids every provider accepts in a replayed history (Anthropic's pattern is the strictest). */
const SAFE_TOOL_CALL_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Tool names a provider accepts in a replayed history. */
const SAFE_TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Text safe to store: each NUL and each lone surrogate becomes U+FFFD; everything else (valid
 * surrogate pairs, other control characters) is kept.
 * @param text any JS string
 * @returns a string of the same length PostgreSQL can store
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, REPLACEMENT);
}

/**
 * Repairs a stream of text deltas. A provider may split a surrogate pair across two deltas, so a
 * delta ending in a high surrogate keeps it back until the next delta shows whether its pair
 * follows; `end()` releases (as U+FFFD) a high surrogate the stream never completed.
 */
export class TextDeltaRepair {
  private held = '';

  /** @returns the storable text of `delta` (possibly empty while a high surrogate is held back) */
  push(delta: string): string {
    let text = this.held + delta;
    this.held = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.held = text.slice(-1);
      text = text.slice(0, -1);
    }
    return storableText(text);
  }

  /** @returns what is still held back, repaired (U+FFFD or empty) */
  end(): string {
    const rest = this.held;
    this.held = '';
    return storableText(rest);
  }
}

/** The JSON path and code point of the first refused character in `value`, if any. */
function findRefusedCharacter(value: unknown, path = '$'): { path: string; codePoint: number } | null {
  if (typeof value === 'string') {
    const match = REFUSED_IN_ARGS.exec(value);
    return match ? { path, codePoint: match[0].charCodeAt(0) } : null;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findRefusedCharacter(value[index], `${path}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const inKey = REFUSED_IN_ARGS.exec(key);
      if (inKey) return { path: `${path} (a key)`, codePoint: inKey[0].charCodeAt(0) };
      const found = findRefusedCharacter(item, `${path}.${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}`);
      if (found) return found;
    }
  }
  return null;
}

function describeCodePoint(codePoint: number): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  if (codePoint === 0) return `${hex} (NUL)`;
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return `${hex} (half of a surrogate pair, e.g. a cut emoji)`;
  if ((codePoint >= 0x202a && codePoint <= 0x202e) || (codePoint >= 0x2066 && codePoint <= 0x2069)) return `${hex} (a bidirectional text control)`;
  return `${hex} (a control character)`;
}

/**
 * A short, storable preview of refused arguments. JSON escapes already show NUL, C0 controls and
 * lone surrogates as `\u0000`-style text; the other invisible characters are escaped the same way.
 */
function previewText(text: string): string {
  const visible = text.replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return storablePreview(visible, REFUSED_ARGS_PREVIEW_CHARS);
}

export type ArgsCheck =
  | { ok: true; args: unknown }
  | {
      ok: false;
      /** What the model reads as the tool error (and the user sees on the call). */
      problem: string;
      /** What is shown and stored for the call's args instead of the refused ones: a storable preview string. */
      shown: string;
    };

/**
 * Checks a model's tool-call arguments before anything else sees them. Refused, in this order:
 * args that were not valid JSON, nested deeper than MAX_TOOL_ARGS_DEPTH, larger than
 * MAX_TOOL_ARGS_BYTES, or holding a character of REFUSED_IN_ARGS in any string or key. Accepted
 * args are returned unchanged (never repaired; see the module comment for why).
 *
 * @param input the parsed args (any JSON value), or the raw text when `unparsed`
 * @param options.unparsed true when the provider's text did not parse as JSON
 */
export function checkToolArgs(input: unknown, options: { unparsed?: boolean } = {}): ArgsCheck {
  if (options.unparsed) {
    return { ok: false, problem: 'The arguments are not valid JSON; nothing was run. Call the tool again with a JSON object.', shown: previewText(String(input)) };
  }
  if (exceedsJsonDepth(input, MAX_TOOL_ARGS_DEPTH)) {
    return {
      ok: false,
      problem: `The arguments are nested more than ${MAX_TOOL_ARGS_DEPTH} levels deep; nothing was run.`,
      shown: '(too deeply nested to show)',
    };
  }
  const json = JSON.stringify(input ?? null);
  const bytes = Buffer.byteLength(json ?? '');
  if (bytes > MAX_TOOL_ARGS_BYTES) {
    return {
      ok: false,
      problem: `The arguments are larger than ${MAX_TOOL_ARGS_BYTES} bytes (${bytes} bytes); nothing was run.`,
      shown: previewText(json),
    };
  }
  const refused = findRefusedCharacter(input);
  if (refused) {
    return {
      ok: false,
      problem: `The arguments contain ${describeCodePoint(refused.codePoint)} at ${refused.path}; nothing was run. Call the tool again with plain text.`,
      shown: previewText(json),
    };
  }
  return { ok: true, args: input };
}

export type StorableResult = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * Turns a tool result (or suspend payload, or hook output) into a JSON value PostgreSQL can store:
 * strings and keys repaired with `storableText`, and what JSON cannot hold treated as
 * `JSON.stringify` does (undefined and functions dropped, non-finite numbers → null, `toJSON`
 * honoured), except that a bigint becomes its decimal string.
 *
 * @returns the storable value, or a problem when the value is cyclic or nested deeper than MAX_VALUE_DEPTH
 */
export function storableValue(value: unknown): StorableResult {
  const seen = new Set<object>();
  const convert = (item: unknown, depth: number): unknown => {
    if (depth > MAX_VALUE_DEPTH) throw new RangeError(`nested more than ${MAX_VALUE_DEPTH} levels deep`);
    if (typeof item === 'string') return storableText(item);
    if (typeof item === 'bigint') return item.toString();
    // As JSON: non-finite numbers become null, and -0 is 0.
    if (typeof item === 'number') return Number.isFinite(item) ? item + 0 : null;
    if (item === null || typeof item === 'boolean') return item;
    if (typeof item !== 'object') return undefined;
    const withJson = item as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return convert(withJson.toJSON(), depth);
    if (seen.has(item)) throw new RangeError('it refers to itself');
    seen.add(item);
    try {
      if (Array.isArray(item)) return item.map((element) => convert(element, depth + 1) ?? null);
      const out: Record<string, unknown> = {};
      for (const [key, element] of Object.entries(item)) {
        const converted = convert(element, depth + 1);
        // defineProperty: a key such as "__proto__" stays an ordinary key, as in JSON.
        if (converted !== undefined) Object.defineProperty(out, storableText(key), { value: converted, enumerable: true, writable: true, configurable: true });
      }
      return out;
    } finally {
      seen.delete(item);
    }
  };
  try {
    return { ok: true, value: convert(value, 1) ?? null };
  } catch (error) {
    return { ok: false, problem: `The tool's result cannot be stored: ${error instanceof Error ? error.message : String(error)}.` };
  }
}

/**
 * A tool-call id safe to store, to put in a URL and to replay to any provider, unique in its run:
 * the provider's own id when it is one, else a new `call_<hex>` id used consistently in our history.
 * @param id the provider's id
 * @param taken ids already used in the run's messages and step
 */
export function safeToolCallId(id: string, taken: ReadonlySet<string>): string {
  if (SAFE_TOOL_CALL_ID.test(id) && !taken.has(id)) return id;
  return `call_${randomUUID().replaceAll('-', '')}`;
}

/**
 * A tool name safe to store and replay: unchanged when it is a known tool or looks like one, else
 * `invalid_tool_name` (the error the model reads quotes a storable preview of what it sent).
 */
export function safeToolName(name: string, known: boolean): string {
  return known || SAFE_TOOL_NAME.test(name) ? name : 'invalid_tool_name';
}

/**
 * Why a person's answer to a tool's question cannot be taken, or null: text PostgreSQL cannot
 * store (NUL, a lone surrogate), or a character the model's tool arguments may not hold either
 * (REFUSED_IN_ARGS: control and bidirectional characters), in any string or key — the bar edited
 * args meet (behaviour §1).
 * @returns the problem in words (for a character: its code point and JSON path)
 */
export function answerProblem(value: unknown): string | null {
  if (containsUnstorableText(value)) return 'The answer contains a NUL character or broken Unicode (a lone surrogate).';
  const refused = findRefusedCharacter(value);
  return refused ? `The answer contains ${describeCodePoint(refused.codePoint)} at ${refused.path}.` : null;
}

/** Whether any string (or key) inside `value` holds a NUL or a lone surrogate. */
export function containsUnstorableText(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (storableText(item) !== item) return true;
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        if (storableText(key) !== key) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

/** A storable preview of any text, cut to `max` characters. */
export function storablePreview(text: string, max = 100): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return storableText(cut);
}
