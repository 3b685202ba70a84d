import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

const START = [process.execPath, ['--import', 'tsx', 'scripts/dev.ts', 'start']] as const;

/** A clean environment for `npm start`'s script, with `extra` on top. */
const startEnv = (extra: Record<string, string>) =>
  ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production', ...extra }) as NodeJS.ProcessEnv;

/** Runs `npm start`'s script (scripts/dev.ts) with `extra` on top of a clean environment. */
function start(extra: Record<string, string>) {
  return spawnSync(...START, { cwd: root, env: startEnv(extra), encoding: 'utf8', timeout: 60_000 });
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

  it('PORT=99999 exits 1 naming PORT (Next.js itself failed late, with exit code 0)', () => {
    const result = start({ PORT: '99999', DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT="99999" is not valid (above 65535)');
  });

  it('an EMBEDDED_PG_PORT another program holds: exit 1 saying so and what to do, without a stack trace', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      // Asynchronously: the program holding the port is this process, and it must keep answering.
      const child = spawn(...START, { cwd: root, env: startEnv({ BETTER_AUTH_SECRET: 'x'.repeat(32), EMBEDDED_PG_PORT: String(port) }) });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain(`port ${port} on 127.0.0.1 is taken by another program`);
      expect(stderr).toContain('set EMBEDDED_PG_PORT to a free port');
      expect(stderr).not.toMatch(/^\s+at /m);
    } finally {
      holder.close();
    }
  });

  it('an incomplete provider configuration exits 1 instead of falling back to the scripted model', () => {
    const result = start({ OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1', DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('MODEL is required with OPENAI_COMPATIBLE_BASE_URL');
  });
});
