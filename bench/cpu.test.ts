import { describe, expect, it } from 'vitest';
import { cpuSampler, parseProcStat, perDecision, treeTicks, type ProcStat } from './cpu';

// Fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
const line = (pid: number, comm: string, ppid: number, utime: number, stime: number, cutime = 0, cstime = 0) =>
  `${pid} (${comm}) S ${ppid} 1 1 0 -1 4194560 100 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 1 0 100 1000 10`;

describe('bench CPU accounting', () => {
  it('reads a stat line whose command name holds spaces and parentheses', () => {
    expect(parseProcStat(line(42, 'next-server (v16.1)', 7, 120, 30, 5, 1))).toEqual({
      pid: 42,
      comm: 'next-server (v16.1)',
      ppid: 7,
      ticks: 150,
      childTicks: 6,
    });
    expect(parseProcStat('not a stat line')).toBeNull();
    expect(parseProcStat('1 (x) S')).toBeNull();
  });

  it('sums a process tree: the root with its waited-for children, and every live descendant', () => {
    const stats = [
      line(10, 'postgres', 1, 100, 50, 40, 10), // postmaster: 150 own, 50 of exited backends
      line(11, 'postgres', 10, 30, 10),
      line(12, 'postgres', 10, 20, 0),
      line(13, 'helper', 12, 5, 5),
      line(20, 'postgres', 1, 999, 999), // another server: not in the tree
    ].map((text) => parseProcStat(text)!) as ProcStat[];
    expect(treeTicks(stats, 10)).toBe(150 + 50 + 40 + 20 + 10);
    expect(treeTicks(stats, 99)).toBeNull();
  });

  it('divides the CPU between two snapshots by the decisions, and keeps unknown processes unknown', () => {
    expect(perDecision({ bench: 100, server: 1000, postgres: null }, { bench: 400, server: 1900, postgres: null }, 100)).toEqual({
      bench: 3,
      server: 9,
      postgres: null,
    });
  });

  it('reads this process’s own CPU, and its tree from /proc', () => {
    let spin = 0;
    const sample = cpuSampler({ serverPid: process.pid, postgresPid: null });
    const before = sample();
    const until = performance.now() + 30;
    while (performance.now() < until) spin += 1;
    const after = sample();
    expect(spin).toBeGreaterThan(0);
    expect(after.bench).toBeGreaterThan(before.bench);
    expect(after.postgres).toBeNull();
    // /proc counts in clock ticks (10 ms), so a 30 ms spin shows as at least one tick more.
    expect(after.server!).toBeGreaterThan(before.server!);
  });
});
