import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@/lib/generated/prisma/client';

/**
 * Creates a Prisma client on `@prisma/adapter-pg`.
 * @param databaseUrl PostgreSQL URL (default: `DATABASE_URL`)
 * @throws when no URL is given and `DATABASE_URL` is unset
 */
export function createPrismaClient(databaseUrl = process.env.DATABASE_URL): PrismaClient {
  if (!databaseUrl) throw new Error('DATABASE_URL is not set; start the app with `npm run dev`.');
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 10 }) });
}

const globalForPrisma = globalThis as unknown as { countersignPrisma?: PrismaClient };

/** The process-wide client (kept across dev hot reloads). */
export function prisma(): PrismaClient {
  globalForPrisma.countersignPrisma ??= createPrismaClient();
  return globalForPrisma.countersignPrisma;
}
