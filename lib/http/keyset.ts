import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';
import { ApiError } from './errors';

/** A position in a list ordered by (createdAt DESC, id DESC). */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

/**
 * The opaque cursor of the row a page ended on: base64url (no padding) of `<ISO 8601 time>|<id>`.
 */
export function encodeCursor(row: KeysetPosition): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');
}

/**
 * The position a cursor names, or null without one. Only what encodeCursor makes is taken: the
 * position must encode back to the very same cursor, so a time `Date` merely manages to parse (`1`,
 * `2025`), a time zone other than `Z`, padding or stray characters are refused. The id is
 * everything after the first `|`, so an id may itself hold a `|`.
 * @throws ApiError 400 INVALID_CURSOR for a cursor this API did not hand out
 */
export function decodeCursor(cursor: string | undefined): KeysetPosition | null {
  if (!cursor) return null;
  const text = Buffer.from(cursor, 'base64url').toString();
  const separator = text.indexOf('|');
  const at = text.slice(0, Math.max(separator, 0));
  const id = separator < 0 ? '' : text.slice(separator + 1);
  const createdAt = new Date(at);
  if (!id || Number.isNaN(createdAt.getTime()) || encodeCursor({ createdAt, id }) !== cursor) {
    throw new ApiError(400, 'INVALID_CURSOR', 'The cursor is not one this API returned.');
  }
  return { createdAt, id };
}

/**
 * SQL condition for rows of `table` strictly after `position` in (created_at DESC, id DESC) order,
 * or TRUE without one. A row comparison: an index on (created_at DESC, id DESC) (after any
 * equality columns) serves it as an index condition, so a page deep in the list starts right at
 * the cursor instead of filtering every newer row. The time goes as ISO 8601 text with its offset,
 * so it means the same instant in any session time zone.
 *
 * @param table the alias of the paged table in the query
 */
export function afterPosition(position: KeysetPosition | null, table: string): Prisma.Sql {
  if (!position) return Prisma.sql`TRUE`;
  const t = Prisma.raw(table);
  return Prisma.sql`(${t}.created_at, ${t}.id) < (${position.createdAt.toISOString()}::timestamptz, ${position.id}::text)`;
}
