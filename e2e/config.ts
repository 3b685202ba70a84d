/** Where the end-to-end server listens and keeps its database (see scripts/e2e-server.ts). */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3100);
export const E2E_DB = { dir: '.data/pg-e2e', port: Number(process.env.E2E_PG_PORT ?? 54349) };
export const E2E_DATABASE_URL =
  process.env.E2E_DATABASE_URL ?? `postgresql://postgres:postgres@127.0.0.1:${E2E_DB.port}/countersign`;
