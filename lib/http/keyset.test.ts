import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { afterPosition, decodeCursor, encodeCursor } from './keyset';

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const position = { createdAt: new Date('2025-03-03T14:02:05.678Z'), id: 'pc_01J8Z' };

/** The ApiError `decodeCursor(cursor)` throws, as `{ status, code }`. */
function refusal(cursor: string) {
  try {
    decodeCursor(cursor);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`cursor ${JSON.stringify(cursor)} was accepted`);
}

describe('encodeCursor / decodeCursor', () => {
  it('encodes a position as base64url of "<ISO time>|<id>"', () => {
    const cursor = encodeCursor(position);
    expect(cursor).toBe('MjAyNS0wMy0wM1QxNDowMjowNS42NzhafHBjXzAxSjha');
    expect(Buffer.from(cursor, 'base64url').toString()).toBe('2025-03-03T14:02:05.678Z|pc_01J8Z');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('decodes a cursor back to the same position', () => {
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    const other = { createdAt: new Date('1999-12-31T23:59:59.999Z'), id: 'c1b9d2f0-4b1e-4c55-9d7b-0b6f6f3a0e11' };
    expect(decodeCursor(encodeCursor(other))).toEqual(other);
  });

  it('keeps an id that itself holds "|"', () => {
    const piped = { createdAt: new Date('2025-01-01T00:00:00.000Z'), id: 'a|b|c' };
    expect(decodeCursor(encodeCursor(piped))).toEqual(piped);
  });

  it('reads no cursor as the first page', () => {
    expect(decodeCursor(undefined)).toBeNull();
    expect(decodeCursor('')).toBeNull();
  });

  it('refuses a cursor this API did not hand out with 400 INVALID_CURSOR', () => {
    const invalid = { status: 400, code: 'INVALID_CURSOR', message: 'The cursor is not one this API returned.' };
    for (const cursor of [
      'garbage',
      b64('no separator at all'),
      b64('not-a-date|pc_1'),
      b64('2025-03-03T14:02:05.678Z|'),
      b64('|pc_1'),
      // Times `Date` parses that encodeCursor never writes.
      b64('2025|pc_1'),
      b64('1|pc_1'),
      b64('2025-03-03T15:02:05.678+01:00|pc_1'),
      // The right text with padding or stray characters around it.
      `${encodeCursor(position)}=`,
      `${encodeCursor(position)}!`,
    ]) {
      expect({ cursor, ...refusal(cursor) }).toEqual({ cursor, ...invalid });
    }
  });
});

describe('afterPosition', () => {
  it('is a row comparison on (created_at, id) of the given table, with the time as ISO 8601 text', () => {
    const sql = afterPosition(position, 'd');
    expect(sql.text).toBe('(d.created_at, d.id) < ($1::timestamptz, $2::text)');
    expect(sql.values).toEqual(['2025-03-03T14:02:05.678Z', 'pc_01J8Z']);
  });

  it('is TRUE on the first page', () => {
    const sql = afterPosition(null, 'p');
    expect(sql.text).toBe('TRUE');
    expect(sql.values).toEqual([]);
  });
});
