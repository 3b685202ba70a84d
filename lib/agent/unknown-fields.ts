import { z } from 'zod';

/*
 * Fields a person sent that a tool's schema does not have. A tool's zod object schemas strip keys
 * they do not know, so a reviewer's edit `{ amount: 120, ammount: 90 }` would parse as
 * `{ amount: 120 }` and the misspelt field would vanish without a word; decisions refuse such input
 * instead (INVALID_ARGS, INVALID_RESUME_DATA), naming the fields as zod's own `unrecognized_keys`
 * issues, so a client reads one shape of details whatever was wrong.
 */

/** A zod-style issue for fields the schema does not have (`code: 'unrecognized_keys'`). */
export interface UnknownFieldIssue {
  code: 'unrecognized_keys';
  keys: string[];
  /** Where the object holding them is (zod's path: keys and array indexes). */
  path: (string | number)[];
  message: string;
}

/**
 * Fields the parse left out: walks `sent` and `parsed` side by side; an own key of a plain object in
 * `sent` that its counterpart in `parsed` lacks is reported; arrays are compared item by item. Keys
 * a schema adds (defaults) and values it transforms are not reported. Depth is bounded by the caller
 * (`exceedsJsonDepth` runs first), and the walk is iterative all the same.
 *
 * @param sent the decoded JSON the client sent
 * @param parsed what the tool's schema returned for it
 * @param limit most fields reported (default 5)
 * @returns one issue per object holding such fields, shallowest first; [] when none
 */
export function droppedFields(sent: unknown, parsed: unknown, limit = 5): UnknownFieldIssue[] {
  const issues: UnknownFieldIssue[] = [];
  let count = 0;
  const queue: [unknown, unknown, (string | number)[]][] = [[sent, parsed, []]];
  while (queue.length > 0 && count < limit) {
    const [from, to, path] = queue.shift()!;
    if (Array.isArray(from)) {
      if (!Array.isArray(to)) continue;
      from.forEach((item, index) => index < to.length && queue.push([item, to[index], [...path, index]]));
    } else if (isPlainObject(from) && isPlainObject(to)) {
      const keys: string[] = [];
      for (const key of Object.keys(from)) {
        if (Object.hasOwn(to, key)) queue.push([from[key], to[key], [...path, key]]);
        else if (count < limit) {
          keys.push(key);
          count += 1;
        }
      }
      if (keys.length > 0) issues.push(unknownFieldIssue(path, keys));
    }
  }
  return issues;
}

/**
 * When `schema` is a zod object and the parse failed, the top-level keys of `sent` it does not have
 * (a misspelt field sent without the right one fails as "required", which alone does not name it).
 * @returns [] or one issue naming them
 */
export function unknownTopLevelFields(schema: z.ZodType, sent: unknown): UnknownFieldIssue[] {
  if (!(schema instanceof z.ZodObject) || !isPlainObject(sent)) return [];
  const keys = Object.keys(sent).filter((key) => !Object.hasOwn(schema.shape, key));
  return keys.length > 0 ? [unknownFieldIssue([], keys)] : [];
}

/** JSON paths of the fields an issue names, e.g. `$.ammount`, `$.items[0]["a b"]`. */
export function fieldPaths(issues: UnknownFieldIssue[]): string[] {
  return issues.flatMap((issue) => issue.keys.map((key) => jsonPath([...issue.path, key])));
}

function unknownFieldIssue(path: (string | number)[], keys: string[]): UnknownFieldIssue {
  return { code: 'unrecognized_keys', keys, path, message: `Unrecognized ${keys.length === 1 ? 'key' : 'keys'}: ${keys.map((key) => JSON.stringify(key)).join(', ')}` };
}

function jsonPath(path: (string | number)[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${text}.${key}` : `${text}[${JSON.stringify(key)}]`), '$');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
