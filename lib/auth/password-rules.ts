/**
 * Why a chosen password is refused beyond better-auth's length rule (8–128 UTF-16 code units), or
 * null: only white space or invisible characters, or a control character (NUL and the like, which no keyboard types and
 * some stores cut at).
 */
export function passwordRefusal(password: unknown): string | null {
  if (typeof password !== 'string') return null;
  // White space and invisible format characters (zero-width space, joiners, direction marks).
  if (password.replace(/[\p{White_Space}\p{Cf}]/gu, '') === '') return 'A password cannot be only spaces or invisible characters.';
  if (/\p{Cc}/u.test(password)) return 'A password cannot hold control characters (such as NUL or a line break).';
  return null;
}
