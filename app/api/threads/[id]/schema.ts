import { z } from 'zod';

/** The `{id}` of /api/threads/{id}: a thread id as lib/chat/thread-id.ts takes them everywhere. */
export { threadParamsSchema } from '@/lib/chat/thread-id';

/** PATCH /api/threads/{id}: the new title, whitespace collapsed, 1–100 characters. */
export const renameThreadSchema = z.object({
  title: z
    .string()
    .transform((title) => title.replace(/\s+/g, ' ').trim())
    .pipe(z.string().min(1, 'Enter a title.').max(100, 'Titles are limited to 100 characters.')),
});
