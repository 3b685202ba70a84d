import 'server-only';
import { betterAuth } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { nextCookies } from 'better-auth/next-js';
import { env } from '@/lib/env';
import { securitySettings } from '@/lib/security/settings';
import { prisma } from '@/lib/store/db';
import { afterAuthRoute, beforeAuthRoute, postgresRateLimitStorage, signUpRefusal } from './guards';

/** Development-only secret; production must set BETTER_AUTH_SECRET. */
const DEV_SECRET = 'countersign-development-secret-change-me-0123456789';

function secret(): string {
  const configured = env().BETTER_AUTH_SECRET;
  if (configured) return configured;
  if (env().NODE_ENV === 'production' && !env().COUNTERSIGN_ALLOW_DEV_SECRET) {
    throw new Error('Set BETTER_AUTH_SECRET (32+ random characters) to run in production.');
  }
  return DEV_SECRET;
}

function build() {
  const settings = securitySettings();
  const proxies = settings.TRUSTED_PROXIES;
  const perMinute = { window: 60, max: settings.SIGN_IN_RATE_LIMIT_PER_MINUTE };
  return betterAuth({
    database: prismaAdapter(prisma(), { provider: 'postgresql' }),
    secret: secret(),
    // A fixed public URL in production (BETTER_AUTH_URL); otherwise the request's own host, when allowed.
    baseURL: env().BETTER_AUTH_URL ?? {
      allowedHosts: env().COUNTERSIGN_ALLOWED_HOSTS,
      protocol: 'auto',
    },
    // Self sign-up is off unless SIGN_UP_ENABLED (then limited by SIGN_UP_EMAIL_DOMAINS); see guards.ts.
    emailAndPassword: { enabled: true, minPasswordLength: 8, maxPasswordLength: 128, disableSignUp: !settings.SIGN_UP_ENABLED },
    user: {
      additionalFields: {
        // Set by an admin or the seed, never by the person signing up.
        role: { type: 'string', required: false, defaultValue: 'user', input: false },
      },
    },
    // The app is reached on whatever host:port it is served from (several servers in tests); the
    // origin check compares a request's Origin with its own host.
    trustedOrigins: (request) => {
      const host = request?.headers.get('host');
      return host ? [`http://${host}`, `https://${host}`] : [];
    },
    databaseHooks: {
      user: {
        create: {
          // Every new account is an end user, whatever a request says; roles are given by an admin
          // or the seed. A sign-up the settings refuse is stopped here too, whichever route made it.
          before: async (user) => {
            if (signUpRefusal(user.email)) return false;
            return { data: { ...user, role: 'user' } };
          },
        },
      },
    },
    hooks: { before: beforeAuthRoute, after: afterAuthRoute },
    // Per-address limits on auth routes, counted in PostgreSQL. Only behind TRUSTED_PROXIES: without
    // a proxy we can trust, X-Forwarded-For is whatever the client wrote, so no address is believed
    // and sign-in is guarded by the per-account lockout alone (guards.ts). COUNTERSIGN_AUTH_RATE_LIMIT=off
    // only for test suites that sign in many times a minute from one address.
    rateLimit: {
      enabled: proxies.length > 0 && env().COUNTERSIGN_AUTH_RATE_LIMIT !== 'off',
      window: 60,
      max: 100,
      customRules: { '/sign-in/*': perMinute, '/sign-up/*': perMinute, '/change-password': perMinute },
      customStorage: postgresRateLimitStorage,
    },
    advanced: {
      ipAddress:
        proxies.length > 0 ? { ipAddressHeaders: ['x-forwarded-for'], trustedProxies: proxies } : { disableIpTracking: true },
      // Secure cookies in production; COUNTERSIGN_COOKIE_SECURE=false only for plain-http test servers.
      useSecureCookies: env().NODE_ENV === 'production' && env().COUNTERSIGN_COOKIE_SECURE,
    },
    plugins: [nextCookies()],
  });
}

const globalForAuth = globalThis as unknown as { countersignAuth?: ReturnType<typeof build> };

/** The better-auth instance (sessions in PostgreSQL via the Prisma adapter, httpOnly cookies). */
export function auth() {
  globalForAuth.countersignAuth ??= build();
  return globalForAuth.countersignAuth;
}
