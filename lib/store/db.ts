import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@/lib/generated/prisma/client';

/**
 * Creates a Prisma client on `@prisma/adapter-pg`.
 * @param databaseUrl PostgreSQL URL (default: `DATABASE_URL`)
 * @param options.maxConnections pool size (default `DATABASE_POOL_SIZE` or 10)
 * @throws when no URL is given and `DATABASE_URL` is unset
 */
export function createPrismaClient(
  databaseUrl = process.env.DATABASE_URL,
  options: { maxConnections?: number } = {},
): PrismaClient {
  if (!databaseUrl) throw new Error('DATABASE_URL is not set; start the app with `npm run dev`.');
  const max = options.maxConnections ?? Number(process.env.DATABASE_POOL_SIZE ?? 10);
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max }),
    // Waiting for a pooled connection under load must not fail a decision; transactions stay short.
    transactionOptions: { maxWait: 10_000, timeout: 15_000 },
  });
}

const globalForPrisma = globalThis as unknown as { countersignPrisma?: PrismaClient };

/** The process-wide client (kept across dev hot reloads). */
export function prisma(): PrismaClient {
  globalForPrisma.countersignPrisma ??= createPrismaClient();
  return globalForPrisma.countersignPrisma;
}
