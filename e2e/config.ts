/** Where the end-to-end server listens and keeps its database (see scripts/e2e-server.ts). */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3100);
export const E2E_DB = { dir: '.data/pg-e2e', port: Number(process.env.E2E_PG_PORT ?? 54349) };
export const E2E_DATABASE_URL =
  process.env.E2E_DATABASE_URL ?? `postgresql://postgres:postgres@127.0.0.1:${E2E_DB.port}/countersign`;

/**
 * Environment of every end-to-end server: plain http on 127.0.0.1 (so cookies cannot be Secure),
 * a fixed auth secret, and rate limits the whole suite stays under (tests that check a limit lower it
 * on a server of their own).
 */
export const E2E_SERVER_ENV: Record<string, string> = {
  BETTER_AUTH_SECRET: 'e2e-only-secret-0123456789abcdefghijklmnopqrstuvwxyz',
  COUNTERSIGN_COOKIE_SECURE: 'false',
  CHAT_RATE_LIMIT_PER_MINUTE: '1000',
  AGENTS_RATE_LIMIT_PER_MINUTE: '1000',
  RUNS_RATE_LIMIT_PER_MINUTE: '1000',
  // The suite signs in dozens of times a minute from 127.0.0.1; better-auth would throttle that.
  COUNTERSIGN_AUTH_RATE_LIMIT: 'off',
  NEXT_TELEMETRY_DISABLED: '1',
};

export const DEMO_PASSWORD = 'countersign-demo';
export const ACCOUNTS = {
  ada: 'ada@example.com',
  ben: 'ben@example.com',
  rita: 'rita@example.com',
  sam: 'sam@example.com',
  alex: 'alex@example.com',
} as const;
