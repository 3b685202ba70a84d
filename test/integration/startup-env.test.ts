import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** Runs `npm start`'s script (scripts/dev.ts) with `extra` on top of a clean environment. */
function start(extra: Record<string, string>) {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production', ...extra } as NodeJS.ProcessEnv;
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/dev.ts', 'start'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
}

describe('a bad environment stops `npm start` / `npm run dev` before anything starts', () => {
  it('CHAT_RATE_LIMIT_PER_MINUTE=abc exits 1 naming the variable and what it accepts', () => {
    const result = start({ CHAT_RATE_LIMIT_PER_MINUTE: 'abc', DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('CHAT_RATE_LIMIT_PER_MINUTE="abc" is not valid');
    expect(result.stderr).toContain('It accepts: whole number 1–100000');
    // It stopped before touching the database or starting Next.
    expect(result.stdout).not.toContain('Seeded');
  });

  it('an incomplete provider configuration exits 1 instead of falling back to the scripted model', () => {
    const result = start({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1', DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('MODEL is required with OPENAI_COMPATIBLE_BASE_URL');
  });
});
