import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { env } from '@/lib/env';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { registerPool } from './hot';

/**
 * The pg pool settings every connection of the app uses.
 *
 * The session time zone is pinned to UTC: `@prisma/adapter-pg` sends DateTime parameters as text
 * without an offset (PostgreSQL reads them in the session's time zone) and reads `timestamptz`
 * values back by replacing their offset with `+00:00`. Both are right only while the session time
 * zone is UTC; on a server whose default is, say, America/New_York every lease, cursor and filter
 * date would be off by the zone's offset. Options already in the URL (`?options=…`) are kept.
 *
 * @param databaseUrl PostgreSQL URL
 * @param max pool size (connections)
 */
export function poolConfig(databaseUrl: string, max: number): pg.PoolConfig {
  let urlOptions: string | null = null;
  try {
    urlOptions = new URL(databaseUrl).searchParams.get('options');
  } catch {
    // Not a URL pg would take either; pg reports it on connect.
  }
  return { connectionString: databaseUrl, max, options: [urlOptions, '-c TimeZone=UTC'].filter(Boolean).join(' ') };
}

export interface PrismaClientOptions {
  /** Pool size (default `DATABASE_POOL_SIZE` or 10). */
  maxConnections?: number;
  /**
   * Builds the pg pool from `poolConfig(…)` (e.g. a `pg.Pool` subclass that counts statements).
   * Keep the config's `options`: they pin the session time zone. Default: `new pg.Pool(config)`.
   */
  pool?: (config: pg.PoolConfig) => pg.Pool;
}

/**
 * Creates a Prisma client on `@prisma/adapter-pg` over its own pg pool (ended by `$disconnect`).
 *
 * The hot path uses no interactive transactions (see lib/store/prisma-store.ts), so a busy event
 * loop cannot make one outlive its timeout; the transaction options below only bound the few
 * interactive transactions of libraries (better-auth). Waiting for a pooled connection has no limit:
 * under load a statement waits its turn instead of failing.
 *
 * @param databaseUrl PostgreSQL URL (default: `DATABASE_URL`)
 * @throws when no URL is given and `DATABASE_URL` is unset
 */
export function createPrismaClient(databaseUrl = env().DATABASE_URL, options: PrismaClientOptions = {}): PrismaClient {
  if (!databaseUrl) throw new Error('DATABASE_URL is not set; start the app with `npm run dev`.');
  const config = poolConfig(databaseUrl, options.maxConnections ?? env().DATABASE_POOL_SIZE);
  const pool = options.pool ? options.pool(config) : new pg.Pool(config);
  const client = new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
    transactionOptions: { maxWait: 10_000, timeout: 15_000 },
  });
  // The hot statements (./hot.ts) run on this pool as named prepared statements.
  registerPool(client, pool);
  return client;
}

const globalForPrisma = globalThis as unknown as { countersignPrisma?: PrismaClient };

/** The process-wide client (kept across dev hot reloads). */
export function prisma(): PrismaClient {
  globalForPrisma.countersignPrisma ??= createPrismaClient();
  return globalForPrisma.countersignPrisma;
}
