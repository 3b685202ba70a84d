import { z } from 'zod';

/** The `{id}` of /api/threads/{id}: a thread id as the chat mints them (up to 100 characters). */
export const threadIdSchema = z.string().min(1).max(100);

/** PATCH /api/threads/{id}: the new title, whitespace collapsed, 1–100 characters. */
export const renameThreadSchema = z.object({
  title: z
    .string()
    .transform((title) => title.replace(/\s+/g, ' ').trim())
    .pipe(z.string().min(1, 'Enter a title.').max(100, 'Titles are limited to 100 characters.')),
});
