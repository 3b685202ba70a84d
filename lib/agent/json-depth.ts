/** Deepest nesting of arrays and objects accepted in request bodies and tool-call arguments. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `value` nests arrays/objects more than `maxDepth` levels deep (a scalar is depth 0,
 * `[]` depth 1). Walks iteratively, so a value nested 100,000 levels deep is answered without
 * overflowing the stack — unlike JSON.stringify, zod or any recursive walk, which it guards.
 */
export function exceedsJsonDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
