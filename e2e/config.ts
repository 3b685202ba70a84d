import fs from 'node:fs';

/**
 * Where an end-to-end server listens and keeps its database. Playwright runs the suite in several
 * worker processes at once (E2E_WORKERS, default 2); each worker starts a stack of its own (an
 * embedded PostgreSQL and a `next start` of the one build, see e2e/stack.ts), so tests in different
 * workers never share rows, settings or ports. A worker's slot is Playwright's TEST_PARALLEL_INDEX
 * (0, 1, …); slot n listens on E2E_PORT + 20·n (its extra servers on the 9 ports after it, see
 * `extraPort`) and keeps PostgreSQL on E2E_PG_PORT + n, in `.data/pg-e2e-<that port>`.
 */
export const E2E_SLOT = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3100) + 20 * E2E_SLOT;
const E2E_PG_PORT = Number(process.env.E2E_PG_PORT ?? 54349) + E2E_SLOT;
export const E2E_DB = { dir: `.data/pg-e2e-${E2E_PG_PORT}`, port: E2E_PG_PORT };
/** An external database (E2E_DATABASE_URL, wiped at start) allows one worker only. */
export const E2E_DATABASE_URL =
  process.env.E2E_DATABASE_URL ?? `postgresql://postgres:postgres@127.0.0.1:${E2E_DB.port}/countersign`;
export const BASE_URL = `http://127.0.0.1:${E2E_PORT}`;

/**
 * The port of this worker's extra server number `n` (1–9): a second instance, a server with other
 * settings, one to crash on purpose, a proxy.
 */
export function extraPort(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 9) throw new Error(`extra server number ${n} is not 1–9`);
  return E2E_PORT + n;
}

/**
 * Environment of every end-to-end server: plain http on 127.0.0.1 (so cookies cannot be Secure),
 * a fixed auth secret, and rate limits the whole suite stays under (tests that check a limit lower it
 * on a server of their own).
 */
export const E2E_SERVER_ENV: Record<string, string> = {
  BETTER_AUTH_SECRET: 'e2e-only-secret-0123456789abcdefghijklmnopqrstuvwxyz',
  AUDIT_CHAIN_KEY: 'e2e-only-audit-chain-key-0123456789abcdefghijklmnopqrstuvwxyz',
  COUNTERSIGN_COOKIE_SECURE: 'false',
  CHAT_RATE_LIMIT_PER_MINUTE: '1000',
  AGENTS_RATE_LIMIT_PER_MINUTE: '1000',
  RUNS_RATE_LIMIT_PER_MINUTE: '1000',
  // The suite signs in dozens of times a minute from 127.0.0.1; better-auth would throttle that.
  COUNTERSIGN_AUTH_RATE_LIMIT: 'off',
  // The webhook tests' receivers listen on 127.0.0.1, which production refuses to send to.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  NEXT_TELEMETRY_DISABLED: '1',
};

/**
 * `next start` arguments every end-to-end server gets besides its port. Node closes a keep-alive
 * connection after 5 idle seconds by default; a test that uses its API client again after more than
 * 5 s in the browser could send on the connection just as the server closed it (ECONNRESET, seen
 * once on CI). Two minutes is longer than any test leaves its client idle.
 */
const E2E_NEXT_START_ARGS = ['-H', '127.0.0.1', '--keepAliveTimeout', '120000'];

/** util-linux's `setpriv` (Linux): asks the kernel to kill a process when its parent dies. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((file) => fs.existsSync(file));

/**
 * The command that starts an end-to-end `next start` on `port`: `[file, args]` for `spawn`.
 *
 * Where util-linux's `setpriv` exists, the server runs under `setpriv --pdeathsig KILL` (it execs
 * the server in place, so the pid stays the server's): the kernel kills the server when the process
 * that started it dies, however it dies. Once a stack's script died without stopping its server, and
 * the orphan kept a core busy retrying its stopped database long after the suite ended.
 */
export function nextStartCommand(port: number): [string, string[]] {
  const next = [process.execPath, 'node_modules/next/dist/bin/next', 'start', '-p', String(port), ...E2E_NEXT_START_ARGS];
  return SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', '--', ...next]] : [next[0], next.slice(1)];
}

export const DEMO_PASSWORD = 'countersign-demo';
export const ACCOUNTS = {
  ada: 'ada@example.com',
  ben: 'ben@example.com',
  rita: 'rita@example.com',
  sam: 'sam@example.com',
  alex: 'alex@example.com',
} as const;
