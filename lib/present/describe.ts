/**
 * Plain-language renderings of tool calls for cards and inbox rows. Pure functions, safe on the
 * server and in the browser.
 */

import { SYSTEM_ACTOR_ID } from '@/lib/agent/deadline';

/** A person as the UI names them: display names are free text, so the (unique) email goes beside. */
export interface Person {
  name: string;
  email: string | null;
}

/** People by user id, built on the server (`displayNames`) and passed down. */
export type People = Record<string, Person>;

/**
 * Unicode direction controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI). In untrusted text they can make it
 * read differently from what it is (U+202E shows "exe.txt" as "txt.exe"), so the UI shows them
 * instead of obeying them. Source: Unicode UAX #9; "Trojan Source" (CVE-2021-42574).
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` with each direction control replaced by a visible marker such as `⟪U+202E⟫`. */
export function revealBidi(text: string): string {
  return text.replace(BIDI_CONTROLS, (char) => `⟪U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟫`);
}

/** Whether any string (or object key) inside `value` contains a Unicode direction control. */
export function hasBidiControls(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (new RegExp(BIDI_CONTROLS.source).test(item)) return true;
    } else if (item && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) stack.push(key, child);
    }
  }
  return false;
}

type Args = Record<string, unknown>;

function asArgs(args: unknown): Args {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Args) : {};
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim()) return revealBidi(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * One line saying what a call will do, for a call whose tool gave no description of its own (tools
 * describe themselves on the server: `description.title` of cards and inbox items): "Runs <tool>
 * with <args summary>". The UI never special-cases a tool by its name.
 */
export function describeToolCall(toolName: string, rawArgs: unknown): string {
  const summary = summarizeArgs(rawArgs);
  return summary ? `Runs ${revealBidi(toolName)} with ${summary}` : `Runs ${revealBidi(toolName)}`;
}

/** The line a card or row shows for a call: the tool's own title when it gave one, else describeToolCall. */
export function callTitle(call: { toolName: string; args: unknown; description?: { title: string } | null }): string {
  return call.description?.title ? revealBidi(call.description.title) : describeToolCall(call.toolName, call.args);
}

/** Renders any JSON value compactly on one line (strings unquoted at the top level; direction controls shown). */
export function formatValue(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return revealBidi(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return revealBidi(JSON.stringify(value));
}

/** Indented JSON of an untrusted value for a `<pre>`, direction controls shown. */
export function formatJson(value: unknown): string {
  return revealBidi(JSON.stringify(value, null, 2) ?? 'undefined');
}

/** `key: value, key: value`, cut to about `max` characters. */
export function summarizeArgs(rawArgs: unknown, max = 80): string {
  const entries = Object.entries(asArgs(rawArgs));
  const text =
    entries.length > 0
      ? entries.map(([key, value]) => `${revealBidi(key)}: ${formatValue(value)}`).join(', ')
      : rawArgs === undefined || rawArgs === null
        ? ''
        : formatValue(rawArgs);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * "you" for the viewer, else the person's display name with their email, e.g. "Rita (rita@example.com)":
 * anyone can call themself "Ada", but not take Ada's email. Falls back to the id.
 */
export function personName(id: string | null | undefined, people: People, viewerId?: string): string {
  if (!id) return 'someone';
  // Deadlines decide as the system (see lib/agent/deadline.ts).
  if (id === SYSTEM_ACTOR_ID) return 'Countersign (deadline)';
  if (viewerId && id === viewerId) return 'you';
  const person = people[id];
  if (!person) return revealBidi(id);
  return revealBidi(person.email ? `${person.name} (${person.email})` : person.name);
}

/** The question a suspended tool asks, from its suspend payload. */
export function questionText(suspendPayload: unknown): string | undefined {
  if (typeof suspendPayload === 'string') return revealBidi(suspendPayload);
  const payload = asArgs(suspendPayload);
  for (const key of ['message', 'question', 'prompt', 'reason']) {
    const value = str(payload[key]);
    if (value) return value;
  }
  return undefined;
}

/** The first 8 hex digits of a fingerprint, as people compare them. */
export function shortFingerprint(fingerprint: string): string {
  return fingerprint.replace(/^sha256:/, '').slice(0, 8);
}

const POLICY: Record<string, string> = {
  tool: 'The tool always asks',
  request: 'The request asked for approval',
  'agent-default': 'The agent’s default',
  'policy-error': 'Policy failed, so approval is required',
};

/** Why a call needs approval, in words (the runtime stores a reason code). */
export function policyText(policy: string): string {
  return POLICY[policy] ?? policy;
}
