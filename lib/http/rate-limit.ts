import 'server-only';
import { prisma } from '@/lib/store/db';
import { securitySettings } from '@/lib/security/settings';
import { ApiError } from './errors';

/**
 * Fixed-window rate limit kept in PostgreSQL, so it holds across servers: one atomic upsert per call.
 *
 * @param input.key what is limited, e.g. `chat:<userId>`
 * @param input.limit requests allowed per window
 * @param input.windowMs window length, in ms
 * @throws ApiError 429 RATE_LIMITED with `details.retryAfterSeconds` (routes send it as Retry-After)
 */
export async function consumeRateLimit(input: { key: string; limit: number; windowMs: number }): Promise<void> {
  const now = Date.now();
  const windowStart = new Date(now - (now % input.windowMs));
  const [row] = await prisma().$queryRaw<{ count: number }[]>`
    INSERT INTO rate_limits (key, window_start, count) VALUES (${input.key}, ${windowStart}, 1)
    ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
    RETURNING count`;
  if (row.count > input.limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart.getTime() + input.windowMs - now) / 1000));
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
