import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeModel, ENV_DOCS, EnvError, envSchema, parseEnv, renderEnvTable, serverStartProblems } from './env';

const problemsOf = (source: Record<string, string>) => {
  try {
    parseEnv(source);
  } catch (error) {
    if (error instanceof EnvError) return error.message;
    throw error;
  }
  throw new Error('expected an EnvError');
};

describe('parseEnv', () => {
  it('INBOX_OVERDUE_AFTER is a span (90s, 30m, 24h, 2d) in ms, 24 h by default; anything else is refused', () => {
    expect(parseEnv({}).INBOX_OVERDUE_AFTER).toBe(24 * 3_600_000);
    expect(parseEnv({ INBOX_OVERDUE_AFTER: '90s' }).INBOX_OVERDUE_AFTER).toBe(90_000);
    expect(parseEnv({ INBOX_OVERDUE_AFTER: '2d' }).INBOX_OVERDUE_AFTER).toBe(2 * 86_400_000);
    expect(problemsOf({ INBOX_OVERDUE_AFTER: '24' })).toContain('INBOX_OVERDUE_AFTER="24" is not valid (not a span such as 90s, 30m, 24h or 2d)');
    expect(problemsOf({ INBOX_OVERDUE_AFTER: '0s' })).toContain('shorter than 1 s');
    expect(problemsOf({ INBOX_OVERDUE_AFTER: '400d' })).toContain('longer than 366 days');
  });

  it('CHAT_RATE_LIMIT_PER_MINUTE=abc is refused, naming the variable, its value and what it accepts', () => {
    const message = problemsOf({ CHAT_RATE_LIMIT_PER_MINUTE: 'abc' });
    expect(message).toContain('CHAT_RATE_LIMIT_PER_MINUTE="abc" is not valid (not a whole number). It accepts: whole number 1–100000 (default 30).');
    expect(problemsOf({ CHAT_RATE_LIMIT_PER_MINUTE: '0' })).toContain('below 1');
    expect(problemsOf({ CHAT_RATE_LIMIT_PER_MINUTE: '12.5' })).toContain('CHAT_RATE_LIMIT_PER_MINUTE');
  });

  it('PORT is a TCP port: 99999 stops the start (Next.js itself failed late with a RangeError and exit code 0)', () => {
    expect(parseEnv({}).PORT).toBeUndefined();
    expect(parseEnv({ PORT: '8080' }).PORT).toBe(8080);
    expect(problemsOf({ PORT: '99999' })).toContain('PORT="99999" is not valid (above 65535). It accepts: port 1–65535 (default 3000).');
    expect(problemsOf({ PORT: 'http' })).toContain('PORT="http" is not valid (not a whole number)');
  });

  it('lists every bad variable at once and never prints a secret', () => {
    const message = problemsOf({ DATABASE_POOL_SIZE: '-1', BETTER_AUTH_SECRET: 'short-secret', COUNTERSIGN_AUTH_RATE_LIMIT: 'nope', DATABASE_URL: 'mysql://u:hunter2@h/db' });
    expect(message).toContain('DATABASE_POOL_SIZE="-1"');
    expect(message).toContain('BETTER_AUTH_SECRET=(hidden) is not valid (shorter than 32 characters)');
    expect(message).toContain('COUNTERSIGN_AUTH_RATE_LIMIT="nope"');
    expect(message).toContain('DATABASE_URL=(hidden)');
    expect(message).not.toContain('short-secret');
    expect(message).not.toContain('hunter2');
  });

  it('applies defaults, reads flags, and treats empty values as unset', () => {
    const env = parseEnv({ CHAT_RATE_LIMIT_PER_MINUTE: '', COUNTERSIGN_COOKIE_SECURE: 'false', COUNTERSIGN_ALLOWED_HOSTS: 'app.example.com, *.example.com:8443' });
    expect(env).toMatchObject({
      NODE_ENV: 'development',
      CHAT_RATE_LIMIT_PER_MINUTE: 30,
      DATABASE_POOL_SIZE: 10,
      COUNTERSIGN_COOKIE_SECURE: false,
      COUNTERSIGN_AUTH_RATE_LIMIT: 'on',
      COUNTERSIGN_ALLOWED_HOSTS: ['app.example.com', '*.example.com:8443'],
      model: { provider: 'local', modelId: 'scripted' },
    });
  });

  it('runs the job worker in process unless JOBS_IN_PROCESS says false, and refuses a value it cannot read', () => {
    expect(parseEnv({})).toMatchObject({ JOBS_IN_PROCESS: true, JOBS_CONCURRENCY: 5 });
    expect(parseEnv({ JOBS_IN_PROCESS: 'false', JOBS_CONCURRENCY: '2' })).toMatchObject({ JOBS_IN_PROCESS: false, JOBS_CONCURRENCY: 2 });
    expect(problemsOf({ JOBS_IN_PROCESS: 'no' })).toContain('JOBS_IN_PROCESS="no" is not valid');
    expect(problemsOf({ JOBS_CONCURRENCY: '0' })).toContain('JOBS_CONCURRENCY="0" is not valid (below 1)');
  });
});

describe('the model configuration', () => {
  it('resolves each provider with its key and endpoint', () => {
    expect(parseEnv({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1', MODEL: 'llama3.1' }).model).toEqual({
      provider: 'openai-compatible',
      modelId: 'llama3.1',
      baseURL: 'http://127.0.0.1:11434/v1',
      apiKey: undefined,
    });
    expect(parseEnv({ OPENAI_API_KEY: 'sk-1' }).model).toMatchObject({ provider: 'openai', modelId: 'gpt-5-mini', baseURL: 'https://api.openai.com/v1' });
    expect(parseEnv({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/v1', MODEL: 'anthropic/claude-x' }).model).toMatchObject({
      provider: 'anthropic',
      modelId: 'claude-x',
      baseURL: 'http://127.0.0.1:9/v1',
    });
    expect(parseEnv({ OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b', MODEL: 'anthropic/claude-x' }).model).toMatchObject({ provider: 'anthropic' });
    expect(parseEnv({ MODEL: 'openai/gpt-5-mini', AI_GATEWAY_API_KEY: 'g' }).model).toMatchObject({ provider: 'gateway', modelId: 'openai/gpt-5-mini' });
    expect(parseEnv({ MODEL: 'local/scripted', OPENAI_API_KEY: 'a' }).model).toEqual({ provider: 'local', modelId: 'scripted' });
  });

  it('refuses every configuration that used to fall back to the scripted model silently', () => {
    expect(problemsOf({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1' })).toContain('MODEL is required with OPENAI_COMPATIBLE_BASE_URL');
    expect(problemsOf({ MODEL: 'openai/gpt-5-mini' })).toContain('MODEL "openai/gpt-5-mini" needs a provider: AI_GATEWAY_API_KEY');
    expect(problemsOf({ MODEL: 'gpt-5-mini', AI_GATEWAY_API_KEY: 'g' })).toContain('must be provider/model');
    expect(problemsOf({ AI_GATEWAY_API_KEY: 'g' })).toContain('AI_GATEWAY_API_KEY is set but MODEL is not');
    expect(problemsOf({ OPENAI_COMPATIBLE_API_KEY: 'k' })).toContain('OPENAI_COMPATIBLE_API_KEY is set but OPENAI_COMPATIBLE_BASE_URL is not');
    expect(problemsOf({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/v1' })).toContain('ANTHROPIC_BASE_URL is set but ANTHROPIC_API_KEY is not');
    expect(problemsOf({ OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b', MODEL: 'claude-x' })).toContain('ambiguous');
    expect(problemsOf({ OPENAI_API_KEY: 'a', MODEL: 'anthropic/claude-x' })).toContain('needs ANTHROPIC_API_KEY');
    expect(problemsOf({ OPENAI_COMPATIBLE_BASE_URL: 'ftp://x' })).toContain('not an http(s) URL');
  });

  it('describes the model in use without its key', () => {
    const env = parseEnv({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1', MODEL: 'llama3.1', OPENAI_COMPATIBLE_API_KEY: 'secret-key' });
    expect(describeModel(env.model)).toBe('openai-compatible llama3.1 at http://127.0.0.1:11434/v1');
    expect(describeModel(parseEnv({}).model)).toBe('local/scripted (offline scripted model)');
  });
});

describe('one module reads the environment', () => {
  const root = path.resolve(import.meta.dirname, '..');

  it("the README's variable table is the one generated from ENV_DOCS (run `npm run docs:env`)", () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('<!-- env-table:start'), readme.indexOf('<!-- env-table:end -->'));
    expect(table.slice(table.indexOf('\n') + 1).trim()).toBe(renderEnvTable());
    expect(Object.keys(ENV_DOCS).sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('no app code outside lib/env.ts reads process.env', () => {
    // Handing the whole environment to a child process (`{ ...process.env }`) reads no variable, and
    // NEXT_RUNTIME is Next's build-time constant in instrumentation.ts, not configuration.
    const readsEnv = (file: string) => /process\.env(?!\.NEXT_RUNTIME)/.test(fs.readFileSync(file, 'utf8').replaceAll('...process.env', ''));
    const files: string[] = ['instrumentation.ts', 'scripts/dev.ts', 'scripts/database.ts', 'scripts/seed.ts', 'scripts/migrate.ts'];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory() && entry.name !== 'generated') walk(file);
        else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') && file !== path.join('lib', 'env.ts')) files.push(file);
      }
    };
    for (const dir of ['app', 'lib', 'components']) walk(dir);
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => readsEnv(path.join(root, file)))).toEqual([]);
  });
});

describe('serverStartProblems', () => {
  it('refuses production without its own BETTER_AUTH_SECRET, naming the variable', () => {
    const [problem] = serverStartProblems(parseEnv({ NODE_ENV: 'production' }));
    expect(problem).toMatch(/^BETTER_AUTH_SECRET is required in production/);
  });

  it('refuses production without its own AUDIT_CHAIN_KEY, naming the variable', () => {
    expect(serverStartProblems(parseEnv({ NODE_ENV: 'production', BETTER_AUTH_SECRET: 'x'.repeat(32) }))).toEqual([expect.stringMatching(/^AUDIT_CHAIN_KEY is required in production/)]);
    expect(() => parseEnv({ AUDIT_CHAIN_KEY: 'short' })).toThrow(/AUDIT_CHAIN_KEY=\(hidden\) is not valid/);
  });

  it('lets production start with a secret, or with the development one when explicitly allowed', () => {
    expect(serverStartProblems(parseEnv({ NODE_ENV: 'production', BETTER_AUTH_SECRET: 'x'.repeat(32), AUDIT_CHAIN_KEY: 'k'.repeat(32) }))).toEqual([]);
    expect(serverStartProblems(parseEnv({ NODE_ENV: 'production', COUNTERSIGN_ALLOW_DEV_SECRET: 'true' }))).toEqual([]);
  });

  it('asks nothing of development', () => {
    expect(serverStartProblems(parseEnv({ NODE_ENV: 'development' }))).toEqual([]);
  });
});

describe('README: EBADENGINE warnings of npm install on Node 20', () => {
  it('names every package of package-lock.json whose engines exclude Node 20.19 (by name or scope/*)', async () => {
    const semver = await import('semver');
    const root = path.resolve(import.meta.dirname, '..');
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const paragraph = readme.slice(readme.indexOf('Node 20.19+ runs everything here'), readme.indexOf('package-lock.json).'));
    expect(paragraph.length).toBeGreaterThan(0);
    const named = [...paragraph.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    const covered = (name: string) => named.some((entry) => entry === name || (entry.endsWith('/*') && name.startsWith(entry.slice(0, -1))));
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };
    const warned = Object.entries(lock.packages)
      .filter(([where, info]) => where && typeof info.engines?.node === 'string' && !semver.satisfies('20.19.0', info.engines.node))
      .map(([where]) => where.split('node_modules/').pop()!);
    expect(warned.length).toBeGreaterThan(0);
    expect([...new Set(warned.filter((name) => !covered(name)))]).toEqual([]);
  });
});
