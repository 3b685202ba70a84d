import 'server-only';
import { prisma } from '@/lib/store/db';
import { securitySettings } from '@/lib/security/settings';
import { ApiError } from './errors';

/**
 * Counts one event for `key` in the current fixed window, in PostgreSQL (one atomic upsert), so
 * the count holds across servers.
 *
 * @param input.key what is counted, e.g. `chat:<userId>`
 * @param input.windowMs window length, in ms
 * @returns the count in this window (this event included) and the seconds until the window ends
 */
export async function countInWindow(input: { key: string; windowMs: number }): Promise<{ count: number; retryAfterSeconds: number }> {
  const now = Date.now();
  const windowStart = new Date(now - (now % input.windowMs));
  const [row] = await prisma().$queryRaw<{ count: number }[]>`
    INSERT INTO rate_limits (key, window_start, count) VALUES (${input.key}, ${windowStart}, 1)
    ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
    RETURNING count`;
  return { count: row.count, retryAfterSeconds: Math.max(1, Math.ceil((windowStart.getTime() + input.windowMs - now) / 1000)) };
}

/**
 * Fixed-window rate limit kept in PostgreSQL, so it holds across servers: one atomic upsert per call.
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
