import { z } from 'zod';
import { securitySettingsSchema } from './security/settings-schema';

/**
 * Every environment variable the app reads, validated in one place. A value that does not fit
 * stops the server at start (instrumentation.ts for `next start`/`next dev`, scripts/dev.ts for
 * `npm run dev`/`npm start`) with a message naming the variable and what it accepts — a typo must
 * never quietly turn a safeguard off (`CHAT_RATE_LIMIT_PER_MINUTE=abc` used to disable the limit).
 *
 * To add a variable: add it to `envSchema` and to `ENV_DOCS` (the type checker insists), then run
 * `npm run docs:env` to update the README's table (a test compares the two).
 *
 * Test and build tooling (Playwright, Vitest, `next.config.ts`, `prisma.config.ts`) reads its own
 * variables where it runs; those are not the app's configuration.
 */

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, { error: 'not a whole number' })
    .transform(Number)
    .pipe(z.number().int().min(min, { error: `below ${min}` }).max(max, { error: `above ${max}` }));
const flag = z.enum(['1', '0', 'true', 'false']).transform((value) => value === '1' || value === 'true');
/** A span such as `90s`, `30m`, `24h` or `2d`, in ms, from `min` to `max` ms. */
const duration = (minMs: number, maxMs: number) =>
  z
    .string()
    .regex(/^\d+(s|m|h|d)$/, { error: 'not a span such as 90s, 30m, 24h or 2d' })
    .transform((value) => Number(value.slice(0, -1)) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[value.at(-1) as 's' | 'm' | 'h' | 'd'])
    .pipe(z.number().min(minMs, { error: `shorter than ${minMs / 1_000} s` }).max(maxMs, { error: `longer than ${maxMs / 86_400_000} days` }));
const httpUrl = z.url({ protocol: /^https?$/, error: 'not an http(s) URL' });

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'not a postgres:// URL' }).optional(),
  DATABASE_POOL_SIZE: int(1, 1_000).default(10),
  PORT: int(1, 65_535).optional(),
  EMBEDDED_PG_PORT: int(1, 65_535).default(54_329),
  DEBUG_PG: flag.default(false),
  CHAT_RATE_LIMIT_PER_MINUTE: int(1, 100_000).default(30),
  BETTER_AUTH_SECRET: z.string().min(32, { error: 'shorter than 32 characters' }).optional(),
  BETTER_AUTH_URL: httpUrl.optional(),
  COUNTERSIGN_ALLOWED_HOSTS: z
    .string()
    .default('localhost,localhost:*,127.0.0.1,127.0.0.1:*')
    .transform((value) => value.split(',').map((host) => host.trim()))
    .pipe(z.array(z.string().regex(/^[\w.*-]+(:[\d*]+)?$/, { error: 'not a host or host:port pattern' })).min(1)),
  COUNTERSIGN_ALLOW_DEV_SECRET: flag.default(false),
  AUDIT_CHAIN_KEY: z.string().min(32, { error: 'shorter than 32 characters' }).optional(),
  AUDIT_CHAIN_LEGACY_LINKS: int(0, Number.MAX_SAFE_INTEGER).default(0),
  COUNTERSIGN_AUTH_RATE_LIMIT: z.enum(['on', 'off']).default('on'),
  COUNTERSIGN_COOKIE_SECURE: flag.default(true),
  COUNTERSIGN_SHOW_DEMO_ACCOUNTS: flag.default(false),
  COUNTERSIGN_DEMO_ACCOUNTS: flag.default(false),
  SCRIPTED_MODEL_DELAY_MS: int(0, 10_000).default(0),
  DEMO_TOOL_DELAY_MS: int(0, 600_000).default(0),
  JOBS_IN_PROCESS: flag.default(true),
  JOBS_CONCURRENCY: int(1, 100).default(5),
  CLASSIFIER_TIMEOUT_MS: int(100, 60_000).default(3_000),
  WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(5_000),
  WEBHOOK_MAX_ATTEMPTS: int(1, 30).default(10),
  WEBHOOK_RETRY_BASE_MS: int(100, 3_600_000).default(10_000),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag.default(false),
  INBOX_OVERDUE_AFTER: duration(1_000, 366 * 86_400_000).default(24 * 3_600_000),
  MODEL: z.string().regex(/^[\w.:@/-]+$/, { error: 'not a model id' }).optional(),
  OPENAI_COMPATIBLE_BASE_URL: httpUrl.optional(),
  OPENAI_COMPATIBLE_API_KEY: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: httpUrl.optional(),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: httpUrl.optional(),
  AI_GATEWAY_API_KEY: z.string().optional(),
  MODEL_IDLE_TIMEOUT_MS: int(1_000, 3_600_000).default(60_000),
  MODEL_REASONING: z.enum(['off', 'low', 'medium', 'high'], { error: 'not one of off, low, medium, high' }).optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'not an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z
    .string()
    .regex(/^([^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/, { error: 'not an address (`a@b.example` or `Name <a@b.example>`)' })
    .default('Countersign <countersign@localhost>'),
  APP_URL: httpUrl.optional(),
  // Sign-up, sign-in throttling, trusted proxies, live-stream and API limits (lib/security/settings.ts).
  ...securitySettingsSchema.shape,
});

type Variables = z.infer<typeof envSchema>;

/** Documentation of each variable: what it accepts and what it does (the README's table). */
export const ENV_DOCS: Record<keyof Variables, { accepts: string; meaning: string; secret?: true }> = {
  NODE_ENV: { accepts: '`development`, `production`, `test`', meaning: 'set by Next.js (`next dev` / `next start`); production requires `BETTER_AUTH_SECRET`' },
  DATABASE_URL: { accepts: '`postgres://…` URL', meaning: 'the PostgreSQL to use; unset, `npm run dev` starts an embedded one', secret: true },
  DATABASE_POOL_SIZE: { accepts: 'whole number 1–1000 (default 10)', meaning: 'database connections per server' },
  PORT: { accepts: 'port 1–65535 (default 3000)', meaning: 'the port the app listens on (read by Next.js; `-p` on its command line wins)' },
  EMBEDDED_PG_PORT: { accepts: 'port 1–65535 (default 54329)', meaning: 'port of the embedded PostgreSQL of `npm run dev`' },
  DEBUG_PG: { accepts: '`1`/`true` or `0`/`false` (default off)', meaning: "print the embedded PostgreSQL's errors" },
  CHAT_RATE_LIMIT_PER_MINUTE: { accepts: 'whole number 1–100000 (default 30)', meaning: 'POST /api/chat requests per user and minute (429 with Retry-After above it)' },
  BETTER_AUTH_SECRET: { accepts: '32+ characters', meaning: 'signs sessions; required in production', secret: true },
  BETTER_AUTH_URL: { accepts: 'http(s) URL', meaning: 'the public URL; cookies are then bound to it (set it in production)' },
  COUNTERSIGN_ALLOWED_HOSTS: {
    accepts: 'comma-separated `host` or `host:port` patterns, `*` wildcards (default `localhost,localhost:*,127.0.0.1,127.0.0.1:*`)',
    meaning: 'hosts the app answers on when `BETTER_AUTH_URL` is unset',
  },
  COUNTERSIGN_ALLOW_DEV_SECRET: { accepts: '`1`/`true` or `0`/`false` (default off)', meaning: 'let production run with the built-in development secrets of `BETTER_AUTH_SECRET` and `AUDIT_CHAIN_KEY` (never on a real deployment)' },
  AUDIT_CHAIN_KEY: {
    accepts: '32+ characters',
    meaning:
      'keys the audit hash chain (HMAC-SHA256; never stored in the database, so its owner cannot recompute a changed entry’s links); required in production; `npm run audit:verify` and the auditor checking an export need the same value; outside production a built-in development key',
    secret: true,
  },
  AUDIT_CHAIN_LEGACY_LINKS: {
    accepts: 'whole number ≥ 0 (default 0)',
    meaning: 'how many audit chain links were written before `AUDIT_CHAIN_KEY` (unkeyed sha256 links, checked as such); every later link must be keyed. Set it once, to the chain head’s number when the key was introduced',
  },
  COUNTERSIGN_AUTH_RATE_LIMIT: { accepts: '`on` or `off` (default on)', meaning: 'better-auth’s sign-in rate limit (`off` only for test suites)' },
  COUNTERSIGN_COOKIE_SECURE: { accepts: '`1`/`true` or `0`/`false` (default true)', meaning: 'Secure cookies in production (`false` only for plain-http test servers)' },
  COUNTERSIGN_SHOW_DEMO_ACCOUNTS: { accepts: '`1`/`true` or `0`/`false` (default off)', meaning: 'list the demo accounts on the sign-in page in production' },
  COUNTERSIGN_DEMO_ACCOUNTS: {
    accepts: '`1`/`true` or `0`/`false` (default off)',
    meaning: '`npm start` also creates the demo accounts (public password) when it seeds a fresh database; `npm run dev` always does',
  },
  SCRIPTED_MODEL_DELAY_MS: { accepts: 'whole number 0–10000 (default 0)', meaning: 'pause of the offline scripted model before each word, in ms (demos, crash tests)' },
  DEMO_TOOL_DELAY_MS: { accepts: 'whole number 0–600000 (default 0)', meaning: 'how long the side-effecting demo tools take, in ms (crash tests)' },
  JOBS_IN_PROCESS: {
    accepts: '`1`/`true` or `0`/`false` (default true)',
    meaning: 'run the job worker (recovery sweep, deadlines, escalations, notifications) inside each server; `false` on web servers when `npm run worker` runs separately',
  },
  JOBS_CONCURRENCY: { accepts: 'whole number 1–100 (default 5)', meaning: 'jobs one worker (in-process or `npm run worker`) runs at once' },
  CLASSIFIER_TIMEOUT_MS: {
    accepts: 'whole number 100–60000 (default 3000)',
    meaning: 'how long a `classify` policy rule waits for the decision model, in ms; after it the call needs approval',
  },
  WEBHOOK_TIMEOUT_MS: {
    accepts: 'whole number 100–60000 (default 5000)',
    meaning: 'how long one webhook delivery attempt waits for the receiver’s answer, in ms; longer counts as a failed attempt',
  },
  WEBHOOK_MAX_ATTEMPTS: { accepts: 'whole number 1–30 (default 10)', meaning: 'attempts of one webhook delivery (the first one and its retries) before it is marked failed' },
  WEBHOOK_RETRY_BASE_MS: {
    accepts: 'whole number 100–3600000 (default 10000)',
    meaning: 'wait before a webhook delivery’s first retry, in ms; each further retry waits twice as long (at most 6 hours)',
  },
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: {
    accepts: '`1`/`true` or `0`/`false` (default off; `npm run dev` turns it on)',
    meaning:
      'let webhooks reach loopback, private, link-local and other non-public addresses (refused otherwise: at registration 400 `WEBHOOK_PRIVATE_ADDRESS`, and at each delivery on the address a name resolves to then); only for development and tests',
  },
  INBOX_OVERDUE_AFTER: {
    accepts: 'a span: `90s`, `30m`, `24h`, `2d` (default `24h`)',
    meaning: 'how long a call without a deadline may wait before the inbox marks it overdue and (when only a reviewer may approve it) emails the reviewers once',
  },
  MODEL: {
    accepts: 'model id, e.g. `gpt-5-mini`, `anthropic/claude-sonnet-4-5`, `llama3.1`',
    meaning: 'the model: on the OpenAI-compatible server, at OpenAI or Anthropic (an `openai/` or `anthropic/` prefix picks the provider), or through the AI Gateway; `local/scripted` or unset: the offline scripted model',
  },
  OPENAI_COMPATIBLE_BASE_URL: { accepts: 'http(s) URL, e.g. `http://127.0.0.1:11434/v1`', meaning: 'an OpenAI-compatible server (Ollama, vLLM, llama.cpp); needs `MODEL`' },
  OPENAI_COMPATIBLE_API_KEY: { accepts: 'any text', meaning: "that server's API key, if it wants one", secret: true },
  OPENAI_API_KEY: { accepts: 'any text', meaning: 'use OpenAI (`MODEL` default `gpt-5-mini`)', secret: true },
  OPENAI_BASE_URL: { accepts: 'http(s) URL (default `https://api.openai.com/v1`)', meaning: "OpenAI's endpoint, e.g. a proxy; needs `OPENAI_API_KEY`" },
  ANTHROPIC_API_KEY: { accepts: 'any text', meaning: 'use Anthropic (`MODEL` default `claude-sonnet-4-5`)', secret: true },
  ANTHROPIC_BASE_URL: { accepts: 'http(s) URL (default `https://api.anthropic.com/v1`)', meaning: "Anthropic's endpoint, e.g. a proxy; needs `ANTHROPIC_API_KEY`" },
  AI_GATEWAY_API_KEY: { accepts: 'any text', meaning: 'use the Vercel AI Gateway for a `provider/model` `MODEL`', secret: true },
  MODEL_IDLE_TIMEOUT_MS: {
    accepts: 'whole number 1000–3600000 (default 60000)',
    meaning: 'how long a model step waits for the next piece of the provider’s answer, in ms; then the request is aborted and the run fails as “the model provider stopped answering” (retried like a 5xx when nothing of the answer had arrived)',
  },
  MODEL_REASONING: {
    accepts: '`off`, `low`, `medium`, `high` (default: the model’s own setting)',
    meaning: 'how much the model reasons (Anthropic extended thinking budget or effort, OpenAI reasoning effort) where the model allows it; reasoning is kept and sent back with tool results, and the chat shows it collapsed',
  },
  SMTP_URL: {
    accepts: '`smtp://user:pass@host:587` or `smtps://…:465` URL',
    meaning: 'the mail server for reviewer emails (a call needs a reviewer); unset, mail goes to the dev mailbox (`/dev/mailbox`, admins) and the log',
    secret: true,
  },
  MAIL_FROM: { accepts: '`a@b.example` or `Name <a@b.example>` (default `Countersign <countersign@localhost>`)', meaning: 'the sender of reviewer emails' },
  APP_URL: { accepts: 'http(s) URL (default `BETTER_AUTH_URL`, else `http://localhost:$PORT`, port 3000 when unset)', meaning: 'the public URL that links in emails point to' },
  SIGN_UP_ENABLED: { accepts: '`true` or `false` (default `false`)', meaning: 'the default of whether people may create their own account (an admin’s setting on /admin/users overrides it); off, `POST /api/auth/sign-up/email` answers 403 `SIGN_UP_DISABLED`; new accounts are always role `user`' },
  SIGN_UP_EMAIL_DOMAINS: { accepts: 'comma-separated domain names, e.g. `example.com,example.org` (default: any)', meaning: 'the default email domains sign-up is limited to, matched exactly (an admin’s setting on /admin/users overrides it); others get 403 `EMAIL_DOMAIN_NOT_ALLOWED`' },
  TRUSTED_PROXIES: { accepts: 'comma-separated IP addresses or CIDR ranges, e.g. `10.0.0.0/8` (default: none)', meaning: 'your reverse proxies: only then is `X-Forwarded-For` believed (read from the right, skipping them) and sign-in attempts also limited per client address, counted in PostgreSQL; unset, the header is ignored and the per-account lockout is the guard' },
  SIGN_IN_MAX_FAILURES: { accepts: 'whole number 1–1000 (default 5)', meaning: 'failed sign-ins in a row after which an account is locked on every server (429 `ACCOUNT_LOCKED`, even with the right password)' },
  SIGN_IN_LOCKOUT_MINUTES: { accepts: 'whole number 1–1440 (default 15)', meaning: 'how long a locked account stays locked; failures are counted within the same span' },
  SIGN_IN_RATE_LIMIT_PER_MINUTE: { accepts: 'whole number 1–100000 (default 10)', meaning: 'sign-in attempts per client address and minute, when `TRUSTED_PROXIES` is set' },
  SSE_MAX_CONNECTIONS_PER_USER: { accepts: 'whole number 1–1000 (default 10)', meaning: 'live streams (chat events, inbox events, stream resume) one person may hold open per server (429 `TOO_MANY_STREAMS`)' },
  AGENTS_RATE_LIMIT_PER_MINUTE: { accepts: 'whole number 1–1000000 (default 60)', meaning: 'requests to `/api/agents/*` per person and minute (429 `RATE_LIMITED` with Retry-After)' },
  RUNS_RATE_LIMIT_PER_MINUTE: { accepts: 'whole number 1–1000000 (default 120)', meaning: 'requests to `/api/runs/*` per person and minute (429 `RATE_LIMITED` with Retry-After)' },
};

/**
 * The README's table of variables, generated from `ENV_DOCS` (`npm run docs:env` writes it between
 * the `env-table` markers; a unit test fails when the README is out of date).
 */
export function renderEnvTable(): string {
  const rows = Object.entries(ENV_DOCS).map(([name, doc]) => `| \`${name}\` | ${doc.accepts} | ${doc.meaning} |`);
  return ['| variable | accepts | what it does |', '|---|---|---|', ...rows].join('\n');
}

/** The model the server uses, resolved from the provider variables (see `resolveModelSetting`). */
export type ModelSetting =
  | { provider: 'local'; modelId: 'scripted' }
  | { provider: 'openai-compatible'; modelId: string; baseURL: string; apiKey?: string }
  | { provider: 'openai'; modelId: string; baseURL: string; apiKey: string }
  | { provider: 'anthropic'; modelId: string; baseURL: string; apiKey: string }
  | { provider: 'gateway'; modelId: string; apiKey: string };

export type Env = Variables & { model: ModelSetting };

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com/v1';

/**
 * Which model the provider variables select, in this order:
 * 1. `OPENAI_COMPATIBLE_BASE_URL` (+ `MODEL`, required; `OPENAI_COMPATIBLE_API_KEY` optional);
 * 2. `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` — with both set, `MODEL`'s `openai/` or `anthropic/`
 *    prefix must say which;
 * 3. `MODEL=provider/model` + `AI_GATEWAY_API_KEY` — the Vercel AI Gateway;
 * 4. nothing — the offline scripted model (also `MODEL=local/scripted`, whatever else is set).
 * Anything that would otherwise fall back to the scripted model without a word — a base URL
 * without `MODEL`, a `MODEL` no key can serve, a key or URL that nothing uses — is a problem.
 *
 * @returns the setting, or the problems (each naming its variable)
 */
export function resolveModelSetting(vars: Variables): { setting: ModelSetting } | { problems: { variable: keyof Variables; message: string }[] } {
  const problems: { variable: keyof Variables; message: string }[] = [];
  const { MODEL: model, OPENAI_COMPATIBLE_BASE_URL: compatibleUrl, OPENAI_API_KEY: openaiKey, ANTHROPIC_API_KEY: anthropicKey, AI_GATEWAY_API_KEY: gatewayKey } = vars;
  const prefix = model?.includes('/') ? model.slice(0, model.indexOf('/')) : undefined;
  const bare = (id: string) => id.slice(id.indexOf('/') + 1);
  let setting: ModelSetting | undefined;

  if (vars.OPENAI_COMPATIBLE_API_KEY && !compatibleUrl) {
    problems.push({ variable: 'OPENAI_COMPATIBLE_API_KEY', message: 'is set but OPENAI_COMPATIBLE_BASE_URL is not; set the server URL too, or unset the key' });
  }
  if (vars.OPENAI_BASE_URL && !openaiKey) problems.push({ variable: 'OPENAI_BASE_URL', message: 'is set but OPENAI_API_KEY is not' });
  if (vars.ANTHROPIC_BASE_URL && !anthropicKey) problems.push({ variable: 'ANTHROPIC_BASE_URL', message: 'is set but ANTHROPIC_API_KEY is not' });

  if (model === 'local/scripted') {
    setting = { provider: 'local', modelId: 'scripted' };
  } else if (compatibleUrl) {
    if (!model) {
      problems.push({ variable: 'MODEL', message: 'is required with OPENAI_COMPATIBLE_BASE_URL: the name of the model on that server, e.g. llama3.1' });
    } else {
      setting = { provider: 'openai-compatible', modelId: model, baseURL: compatibleUrl, apiKey: vars.OPENAI_COMPATIBLE_API_KEY };
    }
  } else if (openaiKey || anthropicKey) {
    const keyed = { openai: openaiKey, anthropic: anthropicKey };
    // Which direct provider MODEL asks for: its prefix, else the one key that is set (OpenAI when
    // both are and MODEL is unset, as before).
    const wanted = prefix === 'openai' || prefix === 'anthropic' ? prefix : prefix ? 'other' : openaiKey && anthropicKey && model ? 'ambiguous' : openaiKey ? 'openai' : 'anthropic';
    if (wanted === 'ambiguous') {
      problems.push({ variable: 'MODEL', message: 'is ambiguous with both OPENAI_API_KEY and ANTHROPIC_API_KEY set; prefix it with openai/ or anthropic/' });
    } else if (wanted === 'other' || !keyed[wanted]) {
      if (gatewayKey) setting = { provider: 'gateway', modelId: model!, apiKey: gatewayKey };
      else problems.push({ variable: 'MODEL', message: `"${model}" needs ${wanted === 'other' ? 'AI_GATEWAY_API_KEY' : `${wanted.toUpperCase()}_API_KEY (or AI_GATEWAY_API_KEY)`}` });
    } else if (wanted === 'openai') {
      setting = { provider: 'openai', modelId: model ? bare(model) : 'gpt-5-mini', baseURL: vars.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL, apiKey: openaiKey! };
    } else {
      setting = {
        provider: 'anthropic',
        modelId: model ? bare(model) : 'claude-sonnet-4-5',
        baseURL: vars.ANTHROPIC_BASE_URL ?? ANTHROPIC_DEFAULT_BASE_URL,
        apiKey: anthropicKey!,
      };
    }
  } else if (model) {
    if (!gatewayKey) {
      problems.push({
        variable: 'MODEL',
        message: `"${model}" needs a provider: AI_GATEWAY_API_KEY (gateway), OPENAI_COMPATIBLE_BASE_URL (a local server), OPENAI_API_KEY or ANTHROPIC_API_KEY; unset MODEL for the offline scripted model`,
      });
    } else if (!prefix) {
      problems.push({ variable: 'MODEL', message: `"${model}" must be provider/model (e.g. openai/gpt-5-mini) for the AI Gateway` });
    } else {
      setting = { provider: 'gateway', modelId: model, apiKey: gatewayKey };
    }
  } else if (gatewayKey) {
    problems.push({ variable: 'AI_GATEWAY_API_KEY', message: 'is set but MODEL is not; set MODEL=provider/model, e.g. openai/gpt-5-mini' });
  } else {
    setting = { provider: 'local', modelId: 'scripted' };
  }
  return problems.length > 0 || !setting ? { problems } : { setting };
}

/**
 * The model in use, for logs and the admin pages: provider, model id and endpoint, never a key.
 * @example "openai-compatible llama3.1 at http://127.0.0.1:11434/v1"
 */
export function describeModel(setting: ModelSetting): string {
  switch (setting.provider) {
    case 'local':
      return 'local/scripted (offline scripted model)';
    case 'gateway':
      return `${setting.modelId} via the Vercel AI Gateway`;
    case 'openai':
    case 'anthropic':
    case 'openai-compatible':
      return `${setting.provider} ${setting.modelId} at ${setting.baseURL}`;
  }
}

/** An environment that does not fit `envSchema`; `message` lists every problem, one per line. */
export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`The server's environment is not valid:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

/**
 * Validates an environment. Empty values count as unset (as a blank line in a .env file means).
 *
 * @param source variables, e.g. `process.env`
 * @returns typed values with defaults, and the resolved model
 * @throws EnvError naming each bad variable, its value (never a secret's) and what it accepts
 */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const input = variablesOf(source);
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const problems = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))].map((key) => {
      const name = key as keyof Variables;
      const doc = ENV_DOCS[name];
      const reasons = parsed.error.issues.filter((issue) => issue.path[0] === key).map((issue) => issue.message);
      const shown = doc.secret ? '(hidden)' : JSON.stringify(input[key]);
      return `${name}=${shown} is not valid (${[...new Set(reasons)].join('; ')}). It accepts: ${doc.accepts.replaceAll('`', '')}.`;
    });
    throw new EnvError(problems);
  }
  const model = resolveModelSetting(parsed.data);
  if ('problems' in model) throw new EnvError(model.problems.map(({ variable, message }) => `${variable} ${message}.`));
  return { ...parsed.data, model: model.setting };
}

/**
 * Whether this process is `next build` (Next sets NEXT_PHASE, its own constant, not configuration):
 * a build may load the instrumentation hook, and it needs no session secret.
 * @returns true during `next build`
 */
export function isNextBuild(): boolean {
  return process.env.NEXT_PHASE === 'phase-production-build';
}

/**
 * Rules for a server that serves requests, checked when it starts (instrumentation.ts) rather than
 * whenever the environment is read, so scripts and `next build` are not bound by them: in
 * production the sessions need the deployment's own secret and the audit chain its own key, not the
 * built-in development ones (unless COUNTERSIGN_ALLOW_DEV_SECRET says otherwise, for throwaway demos).
 *
 * @param config the validated environment
 * @returns one line per problem, naming its variable; empty when the server may start
 */
export function serverStartProblems(config: Pick<Env, 'NODE_ENV' | 'BETTER_AUTH_SECRET' | 'COUNTERSIGN_ALLOW_DEV_SECRET'> & Partial<Pick<Env, 'AUDIT_CHAIN_KEY'>>): string[] {
  const problems: string[] = [];
  if (config.NODE_ENV !== 'production' || config.COUNTERSIGN_ALLOW_DEV_SECRET) return problems;
  if (!config.BETTER_AUTH_SECRET) {
    problems.push('BETTER_AUTH_SECRET is required in production: 32+ random characters (e.g. the output of `openssl rand -base64 32`); it signs the sessions.');
  }
  if (!config.AUDIT_CHAIN_KEY) {
    problems.push('AUDIT_CHAIN_KEY is required in production: 32+ random characters (e.g. `openssl rand -base64 32`), kept outside the database; it keys the audit hash chain (README: Tamper-evident audit).');
  }
  return problems;
}

/**
 * What `npm run dev` sets for its server when the developer did not (scripts/dev.ts): webhooks may
 * reach local receivers (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true).
 * @returns the variables to add to the server's environment
 */
export function developmentDefaults(source: Record<string, string | undefined> = process.env): Record<string, string> {
  const input = variablesOf(source);
  const defaults: Record<string, string> = {};
  if (input.WEBHOOK_ALLOW_PRIVATE_NETWORKS === undefined) defaults.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
  return defaults;
}

/** The app's variables in `source`, empty ones dropped. */
function variablesOf(source: Record<string, string | undefined>): Record<string, string> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = source[key];
    if (value !== undefined && value.trim() !== '') input[key] = value;
  }
  return input;
}

let cached: { key: string; env: Env } | undefined;

/**
 * The app's validated environment, parsed from `process.env`: once per process in practice, since
 * it is parsed again only when one of its variables changed (a test setting DATABASE_URL).
 * @throws EnvError (the server checks this at start, so requests never see it)
 */
export function env(): Env {
  const input = variablesOf(process.env);
  const key = JSON.stringify(input);
  if (cached?.key !== key) cached = { key, env: parseEnv(input) };
  return cached.env;
}

/**
 * Validates the environment when a server or script starts: on a bad value, prints every problem
 * and exits with status 1, so nothing runs with a configuration that silently weakens it.
 * @returns the validated environment
 */
export function envOrExit(): Env {
  try {
    return env();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    console.error(`${error.message}\nFix these variables and start again (README: "Configuration").`);
    process.exit(1);
  }
}
