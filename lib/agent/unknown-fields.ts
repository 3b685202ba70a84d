/**
 * Where a schema's parse left out fields the sender wrote. A tool's zod object schemas strip keys
 * they do not know, so a reviewer's edit `{ amount: 120, ammount: 90 }` would parse as
 * `{ amount: 120 }` and the misspelt field would vanish without a word; decisions refuse such input
 * instead (INVALID_ARGS, INVALID_RESUME_DATA).
 *
 * Walks `sent` and `parsed` side by side: an own key of a plain object in `sent` that its
 * counterpart in `parsed` lacks is reported; arrays are compared item by item. Keys a schema adds
 * (defaults) and values it transforms are not reported. Depth is bounded by the caller
 * (`exceedsJsonDepth` runs first), and the walk is iterative all the same.
 *
 * @param sent the decoded JSON the client sent
 * @param parsed what the tool's schema returned for it
 * @param limit most paths returned (default 5)
 * @returns JSON paths of the dropped fields (`$.ammount`, `$.items[0].note`), shallowest first; [] when none
 */
export function droppedFields(sent: unknown, parsed: unknown, limit = 5): string[] {
  const dropped: string[] = [];
  const queue: [unknown, unknown, string][] = [[sent, parsed, '$']];
  while (queue.length > 0 && dropped.length < limit) {
    const [from, to, path] = queue.shift()!;
    if (Array.isArray(from)) {
      if (!Array.isArray(to)) continue;
      from.forEach((item, index) => index < to.length && queue.push([item, to[index], `${path}[${index}]`]));
    } else if (isPlainObject(from) && isPlainObject(to)) {
      for (const key of Object.keys(from)) {
        const child = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
        if (!Object.hasOwn(to, key)) {
          dropped.push(child);
          if (dropped.length === limit) break;
        } else queue.push([from[key], to[key], child]);
      }
    }
  }
  return dropped;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
