/**
 * Longest user message accepted, in UTF-16 code units (JavaScript's `length`): the composer stops
 * there and says so, and POST /api/chat refuses longer text with 413 MESSAGE_TOO_LONG.
 */
export const MAX_MESSAGE_CHARS = 8_000;

/**
 * The one rule for a thread id: the chat page (`/chat/{id}`) and the inbox and audit thread pages
 * answer 404 for any other, and every route that creates or addresses a thread — POST /api/chat, the
 * agents API (stream, generate, send-tool-approval, the suspended-runs filter), /api/chat/{id} and
 * /api/threads/{id} — refuses one with 400 BAD_REQUEST (its zod form: lib/chat/thread-id.ts). The
 * chat makes UUIDs.
 */
export const THREAD_ID = /^[A-Za-z0-9_-]{1,100}$/;
