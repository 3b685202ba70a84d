import { defineConfig } from 'prisma/config';

// Prisma 7 reads the connection URL from here. Only `prisma migrate deploy`/`studio` need it;
// `prisma generate` does not.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? `postgresql://postgres:postgres@localhost:${process.env.EMBEDDED_PG_PORT ?? 54329}/countersign` },
});
