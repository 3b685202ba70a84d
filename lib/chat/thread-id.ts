import { z } from 'zod';
import { THREAD_ID } from './limits';

/** What a refused thread id is told, wherever it was sent. */
export const THREAD_ID_MESSAGE = 'a thread id is 1–100 letters, digits, - or _';

/**
 * A thread id as every route takes it (THREAD_ID: 1–100 letters, digits, `-` or `_`, exactly as
 * sent): the chat body, the agents API's `threadId` / `memory.thread` and its suspended-runs filter,
 * `/api/chat/{id}` and `/api/threads/{id}`. Anything else is 400 BAD_REQUEST before anything is
 * read or written, so no thread exists that the chat cannot open, rename or delete.
 * The pattern alone checks the length too (one issue, which a union such as `memory.thread` reports
 * as is); minLength and maxLength are stated for the OpenAPI document.
 */
export const threadIdSchema = z
  .string()
  .regex(THREAD_ID, { error: THREAD_ID_MESSAGE })
  .meta({ description: 'A thread id: 1–100 letters, digits, - or _ (the chat mints UUIDs)', minLength: 1, maxLength: 100 });

/** The path params of a route addressing one thread by `{id}`. */
export const threadParamsSchema = z.object({ id: threadIdSchema });
