import { z } from 'zod';
import { THREAD_VERSION } from '@/lib/store/thread-version-format';

/**
 * `GET /api/chat/{id}/events?since=`: the thread's version the client's copy was read at (the chat
 * page's, lib/store/thread-version.ts); a `Last-Event-ID` header is read the same way. Source:
 * behaviour §6 "Live updates".
 */
export const chatEventsQuerySchema = z.object({
  since: z
    .string()
    .regex(THREAD_VERSION, { error: 'since is the thread version the page was read at: 32 hex digits' })
    .optional()
    .meta({ description: 'The thread version of the client’s copy; the feed sends an event at once when the thread changed since' }),
});
