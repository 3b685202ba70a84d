import 'server-only';
import { betterAuth } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { apiKey } from '@better-auth/api-key';
import { nextCookies } from 'better-auth/next-js';
import { admin } from 'better-auth/plugins';
import { defaultAc } from 'better-auth/plugins/admin/access';
import { env, serverStartProblems } from '@/lib/env';
import { securitySettings } from '@/lib/security/settings';
import { prisma } from '@/lib/store/db';
import { afterAuthRoute, beforeAuthRoute, postgresRateLimitStorage, signUpRefusal } from './guards';

/** Development-only secret; production must set BETTER_AUTH_SECRET. */
const DEV_SECRET = 'countersign-development-secret-change-me-0123456789';

function secret(): string {
  const configured = env().BETTER_AUTH_SECRET;
  if (configured) return configured;
  // The server does not start without it (instrumentation.ts); this guards any other caller.
  const problem = serverStartProblems(env()).find((line) => line.startsWith('BETTER_AUTH_SECRET'));
  if (problem) throw new Error(problem);
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
    // Self sign-up is decided per request by the policy in force (an admin's setting, else
    // SIGN_UP_ENABLED / SIGN_UP_EMAIL_DOMAINS): guards.ts refuses it, and the user hook below too.
    emailAndPassword: { enabled: true, minPasswordLength: 8, maxPasswordLength: 128, disableSignUp: false },
    user: {
      additionalFields: {
        // Set by an admin or the seed, never by the person signing up.
        role: { type: 'string', required: false, defaultValue: 'user', input: false },
        // Set where an admin chooses the password (lib/admin), cleared by a change (guards.ts).
        passwordTemporary: { type: 'boolean', required: false, defaultValue: false, input: false },
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
          before: async (user, context) => {
            // An admin creating an account (better-auth's admin plugin) picks its role; the
            // route has already checked that the caller is an admin.
            if (context?.path === '/admin/create-user') return { data: user };
            if (await signUpRefusal(user.email)) return false;
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
    plugins: [
      // API keys: only their hash is stored; identity and scopes are resolved in session.ts, the
      // per-key limit is counted there too (so the plugin's own counter is off by default).
      apiKey({
        defaultPrefix: 'cs_',
        apiKeyHeaders: ['x-api-key'],
        enableSessionForAPIKeys: false,
        requireName: true,
        maximumNameLength: 64,
        rateLimit: { enabled: false },
        keyExpiration: { minExpiresIn: 1, maxExpiresIn: 365 },
      }),
      // User administration (create, roles, deactivate = ban, password reset). Admins may not
      // impersonate or delete: decisions name people, so accounts are deactivated, never removed.
      admin({
        defaultRole: 'user',
        adminRoles: ['admin'],
        roles: {
          user: defaultAc.newRole({ user: [], session: [] }),
          reviewer: defaultAc.newRole({ user: [], session: [] }),
          admin: defaultAc.newRole({
            user: ['create', 'list', 'set-role', 'ban', 'set-password', 'get', 'update'],
            session: ['list', 'revoke', 'delete'],
          }),
        },
        bannedUserMessage: 'This account was deactivated by an administrator.',
      }),
      nextCookies(),
    ],
  });
}

const globalForAuth = globalThis as unknown as { countersignAuth?: ReturnType<typeof build> };

/** The better-auth instance (sessions in PostgreSQL via the Prisma adapter, httpOnly cookies). */
export function auth() {
  globalForAuth.countersignAuth ??= build();
  return globalForAuth.countersignAuth;
}
