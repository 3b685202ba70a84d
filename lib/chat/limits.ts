/**
 * Longest user message accepted, in UTF-16 code units (JavaScript's `length`): the composer stops
 * there and says so, and POST /api/chat refuses longer text with 413 MESSAGE_TOO_LONG.
 */
export const MAX_MESSAGE_CHARS = 8_000;

/**
 * A thread id the chat can show: its page (`/chat/{id}`) and the inbox and audit thread pages answer
 * 404 for any other, and POST /api/chat refuses to start one (400). The chat makes UUIDs; the
 * agents API may name threads more freely, and such threads are listed but not opened in the chat.
 */
export const THREAD_ID = /^[A-Za-z0-9_-]{1,100}$/;
