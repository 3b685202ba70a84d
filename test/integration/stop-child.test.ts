import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { stopChild } from '../../scripts/stop-child';

/*
 * `npm run dev` stops `next dev`, which runs its server in a process of its own: stopping only the
 * CLI once left that server running without a parent (seen: an orphaned `next-server` at 50 % CPU).
 */

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('stopChild', () => {
  it('stops a detached child and the process it started, which outlived its parent before', async () => {
    // A parent that exits on SIGTERM and leaves a grandchild that would run on by itself.
    const parent = spawn(
      process.execPath,
      ['-e', `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log(c.pid); process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);`],
      { detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const grandchild = await new Promise<number>((resolve) => parent.stdout!.once('data', (data: Buffer) => resolve(Number(String(data).trim()))));
    expect(alive(grandchild)).toBe(true);
    await stopChild(parent, 3_000);
    expect(alive(parent.pid!)).toBe(false);
    await expect.poll(() => alive(grandchild), { timeout: 2_000 }).toBe(false);
  });

  it('stops a child that was not spawned detached, by itself', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    await stopChild(child, 3_000);
    expect(child.signalCode ?? child.exitCode).not.toBeNull();
  });
});
