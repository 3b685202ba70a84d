/**
 * Longest user message accepted, in UTF-16 code units (JavaScript's `length`): the composer stops
 * there and says so, and POST /api/chat refuses longer text with 413 MESSAGE_TOO_LONG.
 */
export const MAX_MESSAGE_CHARS = 8_000;
