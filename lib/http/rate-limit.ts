import 'server-only';
import { Prisma } from '@/lib/generated/prisma/client';
import { prisma } from '@/lib/store/db';
import { hotQuery } from '@/lib/store/hot';
import { securitySettings } from '@/lib/security/settings';
import { ApiError } from './errors';

/** A limit to count against: `limit` events per `windowMs` for `key` (e.g. `chat:<userId>`). */
export interface RateLimit {
  key: string;
  limit: number;
  windowMs: number;
}

/** The estimated count over the last window (this event included) and the seconds until the current window ends. */
export interface WindowCount {
  count: number;
  retryAfterSeconds: number;
}

/**
 * The sliding-window counter as parts of one SQL statement, so a route can count a request in the
 * statement that also reads what it needs (e.g. the run it decides on):
 * - `cte`: a CTE named `rate_current` that counts one event for `key`, only when `when` holds;
 * - `columns`: the select-list columns `"rateCount"` (null when not counted) and `"ratePrevious"`;
 * - `result(row)`: the estimate (see `countInWindow`), or null when the event was not counted.
 *
 * @param when SQL condition for counting (default: always)
 */
export function windowCounter(input: { key: string; windowMs: number }, when: Prisma.Sql = Prisma.sql`true`) {
  const now = Date.now();
  const windowStart = new Date(now - (now % input.windowMs));
  const previousStart = new Date(windowStart.getTime() - input.windowMs);
  return {
    cte: Prisma.sql`rate_current AS (
      INSERT INTO rate_limits (key, window_start, count) SELECT ${input.key}, ${windowStart}, 1 WHERE ${when}
      ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
      RETURNING count
    )`,
    columns: Prisma.sql`(SELECT count FROM rate_current) AS "rateCount",
      COALESCE((SELECT count FROM rate_limits WHERE key = ${input.key} AND window_start = ${previousStart}), 0) AS "ratePrevious"`,
    result(row: { rateCount: number | null; ratePrevious: number }): WindowCount | null {
      if (row.rateCount === null) return null;
      const stillInside = 1 - (now - windowStart.getTime()) / input.windowMs;
      const count = Number(row.rateCount) + Math.ceil(Number(row.ratePrevious) * stillInside);
      return { count, retryAfterSeconds: Math.max(1, Math.ceil((windowStart.getTime() + input.windowMs - now) / 1000)) };
    },
  };
}

/**
 * Counts one event for `key` with a sliding-window counter kept in PostgreSQL (one atomic statement),
 * so the count holds across servers and a burst cannot straddle a window boundary: the estimate is this
 * window's count plus the previous window's count weighted by how much of it still lies inside the last
 * `windowMs` (rounded up, so the estimate never under-counts a burst at the boundary).
 *
 * @param input.key what is counted, e.g. `chat:<userId>`
 * @param input.windowMs window length, in ms
 * @returns the estimated count over the last `windowMs` (this event included) and the seconds until
 *   the current window ends (an upper bound on the wait)
 */
export async function countInWindow(input: { key: string; windowMs: number }): Promise<WindowCount> {
  const counter = windowCounter(input);
  const [row] = await hotQuery<{ rateCount: number; ratePrevious: number }[]>(prisma(), Prisma.sql`WITH ${counter.cte} SELECT ${counter.columns}`);
  return counter.result(row)!;
}

/**
 * Refuses an event counted over its limit.
 * @throws ApiError 429 RATE_LIMITED with `details.retryAfterSeconds` (routes send it as Retry-After)
 */
export function enforceRateLimit(limit: number, counted: WindowCount): void {
  if (counted.count > limit) {
    const { retryAfterSeconds } = counted;
    throw new ApiError(429, 'RATE_LIMITED', `Too many requests; try again in ${retryAfterSeconds} s.`, { retryAfterSeconds });
  }
}

/**
 * Sliding-window rate limit kept in PostgreSQL, so it holds across servers: one atomic statement per call.
 *
 * @param input.key what is limited, e.g. `chat:<userId>`
 * @param input.limit requests allowed per window
 * @param input.windowMs window length, in ms
 * @throws ApiError 429 RATE_LIMITED with `details.retryAfterSeconds` (routes send it as Retry-After)
 */
export async function consumeRateLimit(input: RateLimit): Promise<void> {
  enforceRateLimit(input.limit, await countInWindow(input));
}

/**
 * Counts one request of `actorId` to a group of API routes against its per-minute limit
 * (AGENTS_RATE_LIMIT_PER_MINUTE, RUNS_RATE_LIMIT_PER_MINUTE). Call it once the request is
 * well-formed, so refused garbage changes nothing.
 * @throws ApiError 429 RATE_LIMITED
 */
export async function consumeApiRateLimit(group: 'agents' | 'runs', actorId: string): Promise<void> {
  await consumeRateLimit(apiRateLimit(group, actorId));
}

/** The per-minute limit of `actorId` for a group of API routes (AGENTS_RATE_LIMIT_PER_MINUTE, RUNS_RATE_LIMIT_PER_MINUTE). */
export function apiRateLimit(group: 'agents' | 'runs', actorId: string): RateLimit {
  const settings = securitySettings();
  const limit = group === 'agents' ? settings.AGENTS_RATE_LIMIT_PER_MINUTE : settings.RUNS_RATE_LIMIT_PER_MINUTE;
  return { key: `${group}:${actorId}`, limit, windowMs: 60_000 };
}
