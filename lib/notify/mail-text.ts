/**
 * Characters that may end a line or otherwise reshape plain text: C0 controls (CR, LF, tab, …),
 * DEL and C1 controls (NEL U+0085 among them), and the Unicode line and paragraph separators
 * U+2028 / U+2029.
 */
const LINE_BREAKING = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/g;

/**
 * A value for one line of a plain-text email: every control character, line or paragraph separator
 * is shown as `⟪U+000A⟫` (the form the app shows direction controls in), so a person's name or an
 * argument value cannot start a line of its own — e.g. a fake "Open it in the inbox: https://evil…"
 * line under the real one.
 * @returns the text with no line break left in it
 */
export function mailLine(text: string): string {
  return text.replace(LINE_BREAKING, (char) => `⟪U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟫`);
}
