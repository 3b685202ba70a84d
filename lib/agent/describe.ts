import type { ContextField, Risk, Tool, ToolContextInput, ToolDescription } from './tool';

const RISKS: readonly Risk[] = ['low', 'medium', 'high'];
const MAX_TITLE = 200;
const MAX_SUMMARY = 1_000;
const MAX_FIELDS = 20;
const MAX_FIELD = 500;

function text(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (!trimmed) return undefined;
  return trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed;
}

/**
 * A tool's own description of one call (`tool.describe(args)`), checked and cut to size: a title of
 * at most 200 characters, a summary of at most 1,000, a risk of `low | medium | high`.
 *
 * @returns null when the tool is unknown, declares no `describe`, the args do not parse, or it
 *   throws or answers something unusable — callers then show a generic line built from the args
 */
export function describeCall(tool: Tool | undefined, args: unknown): ToolDescription | null {
  if (!tool?.describe) return null;
  const parsed = tool.inputSchema.safeParse(args);
  if (!parsed.success) return null;
  return checked(tool, parsed.data);
}

/** `tool.describe(args)` checked and cut to size (null when it throws or answers nothing usable). */
function checked(tool: Tool, args: unknown): ToolDescription | null {
  if (!tool.describe) return null;
  try {
    const raw = tool.describe(args) as Partial<ToolDescription> | null | undefined;
    const title = text(raw?.title, MAX_TITLE);
    if (!title) return null;
    const summary = text(raw?.summary, MAX_SUMMARY);
    const risk = RISKS.includes(raw?.risk as Risk) ? (raw!.risk as Risk) : undefined;
    return { title, ...(summary ? { summary } : {}), ...(risk ? { risk } : {}) };
  } catch {
    return null;
  }
}

/**
 * A tool's description of a call for text that leaves the app (email): the args are checked with
 * their real values, then `describe` sees `mask` (a string) in place of each field the tool marks
 * sensitive (`sensitive: true`: every field), so no sensitive value can reach the text. A tool with
 * sensitive fields should describe a masked value readably (e.g. a money formatter that passes
 * strings through).
 *
 * @param mask what a hidden value shows instead, e.g. "•••"
 * @returns as describeCall: null when the tool gives no usable description
 */
export function describeRedacted(tool: Tool | undefined, args: unknown, mask: string): ToolDescription | null {
  if (!tool?.describe || !tool.sensitive) return describeCall(tool, args);
  const parsed = tool.inputSchema.safeParse(args);
  if (!parsed.success || typeof parsed.data !== 'object' || parsed.data === null || Array.isArray(parsed.data)) return null;
  const hidden = tool.sensitive === true ? null : new Set(tool.sensitive);
  const masked = Object.fromEntries(Object.entries(parsed.data).map(([key, value]) => [key, hidden === null || hidden.has(key) ? mask : value]));
  return checked(tool, masked);
}

/**
 * The business facts a tool gives about one call (`tool.context(args, input)`), at most 20 fields of
 * at most 500 characters each.
 *
 * @returns `{ fields }`, or `{ fields: [], error }` with a sentence when the tool's lookup failed
 *   (the reviewer is told the facts are missing rather than shown nothing)
 */
export async function callContext(tool: Tool | undefined, args: unknown, input: ToolContextInput): Promise<{ fields: ContextField[]; error?: string }> {
  if (!tool?.context) return { fields: [] };
  const parsed = tool.inputSchema.safeParse(args);
  if (!parsed.success) return { fields: [] };
  try {
    const raw = await tool.context(parsed.data, input);
    const fields = (Array.isArray(raw) ? raw : [])
      .map((field) => ({ label: text(field?.label, MAX_FIELD), value: text(field?.value, MAX_FIELD) ?? '—' }))
      .filter((field): field is ContextField => Boolean(field.label))
      .slice(0, MAX_FIELDS);
    return { fields };
  } catch {
    return { fields: [], error: `The ${tool.id} tool could not look up its context.` };
  }
}
