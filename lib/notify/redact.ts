import type { Sensitivity } from '@/lib/agent/tool';

/** What a masked value shows instead of itself. */
export const MASK = '•••';

/**
 * The arguments with every sensitive value replaced by MASK, for text that leaves the app (email).
 * `sensitive: true` masks every top-level value (and a non-object argument as a whole); a list masks
 * those top-level fields. Unmarked tools get their arguments back unchanged.
 *
 * @param args the call's arguments as stored (any JSON)
 * @param sensitive the tool's marker (see `createTool`), or undefined
 */
export function redactArgs(args: unknown, sensitive: Sensitivity | undefined): unknown {
  if (!sensitive) return args;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return MASK;
  const hidden = sensitive === true ? null : new Set(sensitive);
  return Object.fromEntries(Object.entries(args).map(([key, value]) => [key, hidden === null || hidden.has(key) ? MASK : value]));
}
