/** Longest title made from a request, in characters (the list shows one line of it). */
export const TITLE_MAX_CHARS = 60;

/**
 * A thread title from the first request: whitespace (newlines included) collapsed, trimmed, and cut
 * at a word boundary to at most TITLE_MAX_CHARS characters with "…" (never inside a surrogate pair).
 * @returns "New chat" when the request has no visible text
 */
export function titleFromRequest(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return 'New chat';
  const chars = Array.from(flat);
  if (chars.length <= TITLE_MAX_CHARS) return flat;
  const cut = chars.slice(0, TITLE_MAX_CHARS - 1).join('');
  // Keep whole words: drop a word the cut went through, unless that leaves less than half.
  const wordEnds = chars[TITLE_MAX_CHARS - 1] === ' ';
  const space = cut.lastIndexOf(' ');
  const kept = wordEnds || space < TITLE_MAX_CHARS / 2 ? cut : cut.slice(0, space);
  return `${kept.replace(/[\s.,;:!?-]+$/, '')}…`;
}
