import 'server-only';
import { betterAuth } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { nextCookies } from 'better-auth/next-js';
import { env } from '@/lib/env';
import { prisma } from '@/lib/store/db';

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
  return betterAuth({
    database: prismaAdapter(prisma(), { provider: 'postgresql' }),
    secret: secret(),
    // A fixed public URL in production (BETTER_AUTH_URL); otherwise the request's own host, when allowed.
    baseURL: env().BETTER_AUTH_URL ?? {
      allowedHosts: env().COUNTERSIGN_ALLOWED_HOSTS,
      protocol: 'auto',
    },
    emailAndPassword: { enabled: true, minPasswordLength: 8, maxPasswordLength: 128 },
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
    // better-auth's own limiter on sign-in attempts; COUNTERSIGN_AUTH_RATE_LIMIT=off only for test
    // suites that sign in many times a minute from one address.
    rateLimit: { enabled: env().COUNTERSIGN_AUTH_RATE_LIMIT !== 'off' },
    advanced: {
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
