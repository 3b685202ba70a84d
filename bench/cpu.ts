/**
 * CPU time of the processes a throughput batch keeps busy, read from Linux's `/proc/<pid>/stat`:
 * the bench process itself (the clients, and in process the runtime too), the HTTP server with its
 * child processes, and the PostgreSQL server with its backends. A decision's cost in CPU is what
 * decides the rate on a machine of two cores: at 200 decisions/s the whole machine has 10 ms of CPU
 * per decision. Elsewhere than Linux (no /proc) the server and PostgreSQL figures are null.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** One process's line of `/proc/<pid>/stat`, the fields this file needs. */
export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** user + system time of the process, in clock ticks */
  ticks: number;
  /** user + system time of its children that exited and were waited for, in clock ticks */
  childTicks: number;
}

/**
 * Parses `/proc/<pid>/stat` (proc(5)): the command name stands in parentheses and may itself hold
 * spaces and parentheses, so the fields are counted from the last `)`.
 * @returns the fields, or null when the text is not such a line
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  // After ") ": state (3), ppid (4), … utime (14), stime (15), cutime (16), cstime (17).
  const fields = text.slice(close + 2).trim().split(/\s+/);
  const field = (n: number) => Number(fields[n - 3]);
  const values = [field(4), field(14), field(15), field(16), field(17)];
  if (values.some((value) => !Number.isFinite(value))) return null;
  return {
    pid: Number(text.slice(0, open)),
    comm: text.slice(open + 1, close),
    ppid: field(4),
    ticks: field(14) + field(15),
    childTicks: field(16) + field(17),
  };
}

function readStats(): ProcStat[] {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const stats: ProcStat[] = [];
  for (const pid of pids) {
    try {
      const stat = parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (stat) stats.push(stat);
    } catch {
      // exited since the listing
    }
  }
  return stats;
}

/**
 * CPU of a process tree: the root's own time and that of its exited children, plus every live
 * descendant's own time (their exited children are counted by them once waited for).
 * @returns ticks, or null when the root is not running
 */
export function treeTicks(stats: readonly ProcStat[], root: number): number | null {
  const byParent = new Map<number, ProcStat[]>();
  for (const stat of stats) {
    const siblings = byParent.get(stat.ppid);
    if (siblings) siblings.push(stat);
    else byParent.set(stat.ppid, [stat]);
  }
  const rootStat = stats.find((stat) => stat.pid === root);
  if (!rootStat) return null;
  let total = rootStat.ticks + rootStat.childTicks;
  const queue = [...(byParent.get(root) ?? [])];
  while (queue.length > 0) {
    const stat = queue.pop()!;
    total += stat.ticks + stat.childTicks;
    queue.push(...(byParent.get(stat.pid) ?? []));
  }
  return total;
}

/** CPU used so far, in milliseconds. */
export interface CpuSnapshot {
  /** this process: user + system */
  bench: number;
  /** the HTTP server's process tree, when there is one */
  server: number | null;
  /** the PostgreSQL server's process tree, when it runs on this machine and its pid is known */
  postgres: number | null;
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const answer = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim());
    // 100 on every Linux this runs on; getconf is asked in case one differs.
    ticksPerSecond = Number.isInteger(answer) && answer > 0 ? answer : 100;
  }
  return ticksPerSecond;
}

/**
 * The pid of a PostgreSQL server from its data directory: the first line of `postmaster.pid`.
 * @returns the pid, or null when the file is missing or not a pid
 */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * A function that reads the CPU used so far by this process, the server's tree and PostgreSQL's.
 * @param processes.serverPid the HTTP server's pid (the HTTP system only)
 * @param processes.postgresPid the postmaster's pid (null for a server elsewhere)
 */
export function cpuSampler(processes: { serverPid?: number; postgresPid: number | null }): () => CpuSnapshot {
  return () => {
    const usage = process.cpuUsage();
    const needsProc = processes.serverPid !== undefined || processes.postgresPid !== null;
    const stats = needsProc ? readStats() : [];
    const ms = (ticks: number | null) => (ticks === null ? null : (ticks * 1000) / clockTicks());
    return {
      bench: (usage.user + usage.system) / 1000,
      server: processes.serverPid === undefined ? null : ms(treeTicks(stats, processes.serverPid)),
      postgres: processes.postgresPid === null ? null : ms(treeTicks(stats, processes.postgresPid)),
    };
  };
}

/** CPU per decision over a batch, in milliseconds, by process. */
export interface CpuPerDecision {
  bench: number;
  server: number | null;
  postgres: number | null;
}

/** The CPU between two snapshots, divided by `count` decisions. */
export function perDecision(before: CpuSnapshot, after: CpuSnapshot, count: number): CpuPerDecision {
  const per = (a: number | null, b: number | null) => (a === null || b === null || count === 0 ? null : (b - a) / count);
  return {
    bench: count === 0 ? 0 : (after.bench - before.bench) / count,
    server: per(before.server, after.server),
    postgres: per(before.postgres, after.postgres),
  };
}
