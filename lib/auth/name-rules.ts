import { z } from 'zod';

/** The longest display name, in UTF-16 code units (as zod and JavaScript count a string's length). */
export const MAX_DISPLAY_NAME = 100;

/**
 * Why a display name is refused, or null: empty (or only white space), longer than
 * MAX_DISPLAY_NAME characters once trimmed, or holding a control character or a line or paragraph
 * separator (CR, LF, NEL, U+2028, U+2029 — a name is shown on one line: in mail, the inbox, the
 * audit). The one rule of every place a name is set: sign-up and the account's own change
 * (lib/auth/guards.ts, 400 INVALID_NAME), an admin's new account and `npm run admin:create`
 * (createUserSchema), and the demo seed.
 * @param name the name as sent (a value that is not a string is left to the caller's schema: null)
 */
export function displayNameRefusal(name: unknown): string | null {
  if (typeof name !== 'string') return null;
  const trimmed = name.trim();
  if (trimmed === '') return 'A name cannot be empty.';
  if (trimmed.length > MAX_DISPLAY_NAME) return `A name is at most ${MAX_DISPLAY_NAME} characters (this one has ${trimmed.length}).`;
  if (/[\p{Cc}\u2028\u2029]/u.test(trimmed)) return 'A name cannot hold control characters or line breaks.';
  return null;
}

/** A display name in a zod schema: trimmed, refused as displayNameRefusal says (its message is the error). */
export const displayNameSchema = z
  .string()
  .trim()
  .superRefine((name, ctx) => {
    const refusal = displayNameRefusal(name);
    if (refusal) ctx.addIssue({ code: 'custom', message: refusal });
  });
