import { z } from 'zod';

/**
 * A text value of a query string (a filter, an id, a cursor), at most `max` characters and without
 * NUL: PostgreSQL refuses U+0000 in text, so a `%00` in a link would otherwise fail as a database
 * error. A refused value makes the API answer 400 BAD_REQUEST, and the pages show their "could not
 * be read" note and leave the filter out.
 *
 * @param max the longest accepted value, in UTF-16 code units (zod's `max`)
 */
export const queryText = (max: number) => z.string().max(max).refine((value) => !value.includes('\0'), { message: 'must not contain a NUL character (%00)' });

/**
 * Parses a page's query (filters from a link someone may have edited) and leaves out what cannot be
 * read instead of failing: the fields zod refuses are dropped and the rest parsed again.
 *
 * @param schema the query's schema; it must accept the input without the refused fields
 * @param input the query's fields (strings as in the URL)
 * @returns `data`, the parsed query without the refused fields, and `leftOut`, their names (empty
 *   when everything was read)
 */
export function parseLeavingOut<S extends z.ZodType>(schema: S, input: Record<string, unknown>): { data: z.infer<S>; leftOut: string[] } {
  const leftOut: string[] = [];
  let rest = { ...input };
  for (;;) {
    const parsed = schema.safeParse(rest);
    if (parsed.success) return { data: parsed.data, leftOut };
    const refused = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '')))].filter((key) => key in rest);
    // An issue that names no field of the input: nothing more can be left out.
    if (refused.length === 0) throw parsed.error;
    leftOut.push(...refused);
    rest = Object.fromEntries(Object.entries(rest).filter(([key]) => !refused.includes(key)));
  }
}
