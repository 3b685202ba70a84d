import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Operator settings for sign-up, sign-in throttling, trusted proxies, live-stream and API limits:
 * their schema, part of the app's one environment schema (lib/env.ts). This module imports nothing
 * of the app, so lib/env.ts can build on it without an import cycle.
 */

const flag = z.enum(['true', 'false']).default('false').transform((value) => value === 'true');

const positiveInt = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

const list = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim().toLowerCase())
      .filter(Boolean),
  );

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** An IPv4/IPv6 address, optionally with a /prefix (CIDR). */
function isAddressOrRange(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (!family || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** The security variables; part of the app's one environment schema (lib/env.ts). */
export const securitySettingsSchema = z.object({
  /** Whether people may create their own account (POST /api/auth/sign-up/email). Default false. */
  SIGN_UP_ENABLED: flag,
  /** Comma-separated email domains sign-up is limited to (exact match, case-insensitive); empty: any. */
  SIGN_UP_EMAIL_DOMAINS: list.refine((domains) => domains.every((domain) => DOMAIN.test(domain)), {
    message: 'must be a comma-separated list of domain names, e.g. example.com,example.org',
  }),
  /**
   * Comma-separated addresses or CIDR ranges of the reverse proxies in front of the app. Only then is
   * X-Forwarded-For believed (read from the right, skipping these proxies) and sign-in attempts also
   * limited per client address; otherwise the header is ignored, since anyone can send it.
   */
  TRUSTED_PROXIES: list.refine((entries) => entries.every(isAddressOrRange), {
    message: 'must be a comma-separated list of IP addresses or CIDR ranges, e.g. 10.0.0.0/8,127.0.0.1',
  }),
  /** Failed sign-ins in a row after which an account is locked (default 5) … */
  SIGN_IN_MAX_FAILURES: positiveInt(5, 1_000),
  /** … for this many minutes (default 15); the failures are counted within the same span. */
  SIGN_IN_LOCKOUT_MINUTES: positiveInt(15, 24 * 60),
  /** Sign-in attempts per client address and minute, when TRUSTED_PROXIES is set (default 10). */
  SIGN_IN_RATE_LIMIT_PER_MINUTE: positiveInt(10, 100_000),
  /** Live streams (Server-Sent Events) one person may hold open on one server (default 10). */
  SSE_MAX_CONNECTIONS_PER_USER: positiveInt(10, 1_000),
  /** Requests to /api/agents/* per person and minute (default 60). */
  AGENTS_RATE_LIMIT_PER_MINUTE: positiveInt(60, 1_000_000),
  /** Requests to /api/runs/* per person and minute (default 120). */
  RUNS_RATE_LIMIT_PER_MINUTE: positiveInt(120, 1_000_000),
});

export type SecuritySettings = z.infer<typeof securitySettingsSchema>;

/**
 * Validates the settings in `env` (unset variables take their defaults).
 * @throws Error naming each invalid variable
 */
export function parseSecuritySettings(env: Record<string, string | undefined>): SecuritySettings {
  // An empty variable counts as unset.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = securitySettingsSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
  throw new Error(`Invalid settings: ${problems.join('; ')}`);
}
