import 'server-only';
import { ApiError } from './errors';

/** A position in a list ordered by (createdAt DESC, id DESC). */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

/** The opaque cursor of the row a page ended on. */
export function encodeCursor(row: KeysetPosition): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');
}

/**
 * The position a cursor names, or null without one.
 * @throws ApiError 400 INVALID_CURSOR for a cursor this API did not hand out
 */
export function decodeCursor(cursor: string | undefined): KeysetPosition | null {
  if (!cursor) return null;
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new ApiError(400, 'INVALID_CURSOR', 'The cursor is not one this API returned.');
  return { createdAt, id };
}

/** Prisma `where` for rows strictly after `position` in (createdAt DESC, id DESC) order (no OFFSET). */
export function afterPosition(position: KeysetPosition | null) {
  return position
    ? { OR: [{ createdAt: { lt: position.createdAt } }, { createdAt: position.createdAt, id: { lt: position.id } }] }
    : {};
}
