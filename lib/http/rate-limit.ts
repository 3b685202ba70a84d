import 'server-only';
import { prisma } from '@/lib/store/db';
import { securitySettings } from '@/lib/security/settings';
import { ApiError } from './errors';

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
export async function countInWindow(input: { key: string; windowMs: number }): Promise<{ count: number; retryAfterSeconds: number }> {
  const now = Date.now();
  const windowStart = new Date(now - (now % input.windowMs));
  const previousStart = new Date(windowStart.getTime() - input.windowMs);
  const [row] = await prisma().$queryRaw<{ count: number; previous: number }[]>`
    WITH current AS (
      INSERT INTO rate_limits (key, window_start, count) VALUES (${input.key}, ${windowStart}, 1)
      ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
      RETURNING count
    )
    SELECT current.count,
           COALESCE((SELECT count FROM rate_limits WHERE key = ${input.key} AND window_start = ${previousStart}), 0) AS previous
    FROM current`;
  const stillInside = 1 - (now - windowStart.getTime()) / input.windowMs;
  const count = row.count + Math.ceil(row.previous * stillInside);
  return { count, retryAfterSeconds: Math.max(1, Math.ceil((windowStart.getTime() + input.windowMs - now) / 1000)) };
}

/**
 * Sliding-window rate limit kept in PostgreSQL, so it holds across servers: one atomic statement per call.
 *
 * @param input.key what is limited, e.g. `chat:<userId>`
 * @param input.limit requests allowed per window
 * @param input.windowMs window length, in ms
 * @throws ApiError 429 RATE_LIMITED with `details.retryAfterSeconds` (routes send it as Retry-After)
 */
export async function consumeRateLimit(input: { key: string; limit: number; windowMs: number }): Promise<void> {
  const { count, retryAfterSeconds } = await countInWindow(input);
  if (count > input.limit) {
    throw new ApiError(429, 'RATE_LIMITED', `Too many requests; try again in ${retryAfterSeconds} s.`, { retryAfterSeconds });
  }
}

/**
 * Counts one request of `actorId` to a group of API routes against its per-minute limit
 * (AGENTS_RATE_LIMIT_PER_MINUTE, RUNS_RATE_LIMIT_PER_MINUTE). Call it once the request is
 * well-formed, so refused garbage changes nothing.
 * @throws ApiError 429 RATE_LIMITED
 */
export async function consumeApiRateLimit(group: 'agents' | 'runs', actorId: string): Promise<void> {
  const settings = securitySettings();
  const limit = group === 'agents' ? settings.AGENTS_RATE_LIMIT_PER_MINUTE : settings.RUNS_RATE_LIMIT_PER_MINUTE;
  await consumeRateLimit({ key: `${group}:${actorId}`, limit, windowMs: 60_000 });
}
