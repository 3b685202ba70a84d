/**
 * The measurement loops of `npm run bench`, the same for every runtime (bench/model.ts
 * `BenchSystem`): sequential latency samples, and throughput with concurrent clients.
 */
import { randomUUID } from 'node:crypto';
import { perDecision, type CpuPerDecision, type CpuSnapshot } from './cpu';
import type { BenchSystem, Milestone, PausedRun, RuntimeInstance } from './model';

/** Raw samples of one sequential loop (ms, or statements per operation). */
export interface LatencySamples {
  /** stream() called → approval chunk read */
  toApproval: number[];
  /** stream() called → stream ended (the run is paused and may be decided) */
  toPaused: number[];
  /** approve called → tool result read */
  toToolResult: number[];
  /** approve called → continuation ended (run finished) */
  toFinished: number[];
  /** statements from stream() to the approval chunk */
  sqlBeforeApproval: number[];
  /** statements of one stream(), until the database is quiet again */
  sqlPerStream: number[];
  /** statements from the approval call until the tool starts */
  sqlBeforeTool: number[];
  /** statements of one approval and its continuation, until the database is quiet again */
  sqlPerApproval: number[];
}

export const emptySamples = (): LatencySamples => ({
  toApproval: [],
  toPaused: [],
  toToolResult: [],
  toFinished: [],
  sqlBeforeApproval: [],
  sqlPerStream: [],
  sqlBeforeTool: [],
  sqlPerApproval: [],
});

/** Appends `more` to `into`, figure by figure. */
export function mergeSamples(into: LatencySamples, more: LatencySamples) {
  for (const key of Object.keys(into) as (keyof LatencySamples)[]) into[key].push(...more[key]);
}

function marker(system: BenchSystem) {
  const at: Partial<Record<Milestone, { time: number; sql: number }>> = {};
  return {
    at,
    mark: (milestone: Milestone) => {
      at[milestone] ??= { time: performance.now(), sql: system.sql?.count ?? 0 };
    },
  };
}

/**
 * Waits as long as `SqlCounter.settle` waits for a quiet database (60 ms), for systems without a
 * statement counter (over HTTP, the app's agent): so every column starts each operation on a
 * machine that has been idle as long, and none is timed warmer than another.
 * @returns undefined (no statements counted)
 */
const idle = (): Promise<undefined> => new Promise((resolve) => setTimeout(() => resolve(undefined), 60));

/**
 * Runs `count` cycles one after another (no other work in flight): stream until paused, then
 * approve on `decider` (the primary, or the second instance) and read the continuation to its end.
 * The first `warmup` cycles are not recorded. Every cycle checks that the tool ran exactly once.
 *
 * @throws when a cycle fails or the tool did not run exactly once
 */
export async function latencyLoop(
  system: BenchSystem,
  options: { count: number; warmup: number; decider: RuntimeInstance; label: string },
): Promise<LatencySamples> {
  const samples = emptySamples();
  const starter = system.client(0);
  for (let i = 0; i < options.warmup + options.count; i++) {
    const record = i >= options.warmup;
    const key = `${options.label}-${i}-${randomUUID()}`;
    const sql = system.sql;

    const started = marker(system);
    const sql0 = sql?.count ?? 0;
    const t0 = performance.now();
    const run = await starter.start({ key, threadId: `bench-${randomUUID()}` }, started.mark);
    const tPaused = performance.now();
    const sqlStream = sql ? (await sql.settle()) - sql0 : await idle();

    const approved = marker(system);
    const sql1 = sql?.count ?? 0;
    const t1 = performance.now();
    await options.decider.approve(run, approved.mark);
    const tFinished = performance.now();
    const sqlApproval = sql ? (await sql.settle()) - sql1 : await idle();

    const ran = (await system.executions.executions([key])).get(key);
    if (ran !== 1) throw new Error(`${system.name}: the tool ran ${ran} times for ${key}, expected once`);
    if (!record) continue;
    samples.toApproval.push(started.at.approval!.time - t0);
    samples.toPaused.push(tPaused - t0);
    samples.toToolResult.push(approved.at['tool-result']!.time - t1);
    samples.toFinished.push(tFinished - t1);
    if (sql && sqlStream !== undefined && sqlApproval !== undefined) {
      samples.sqlBeforeApproval.push(started.at.approval!.sql - sql0);
      samples.sqlPerStream.push(sqlStream);
      const atTool = system.executions.sqlAtExecute?.(key);
      if (atTool !== undefined) samples.sqlBeforeTool.push(atTool - sql1);
      samples.sqlPerApproval.push(sqlApproval);
    }
  }
  return samples;
}

/** Result of one throughput batch. */
export interface ThroughputResult {
  clients: number;
  runs: number;
  /** runs started and read until paused, per second, with `clients` clients at once */
  pausedPerSecond: number;
  /** decisions made and read to the end of their continuation, per second */
  decisionsPerSecond: number;
  /** tool executions beyond the first for one call (must be 0) */
  duplicates: number;
  /** approved calls whose tool never ran (must be 0) */
  missing: number;
  /** failed starts or decisions */
  errors: number;
  /** first error messages, for the report */
  errorSamples: string[];
  /** CPU per decision of the decision half, by process (absent in older results) */
  cpuPerDecision?: CpuPerDecision;
}

/**
 * `runs` runs are started by `clients` concurrent clients and read until paused; then each client
 * decides the runs it started (an end user may only decide their own), all clients at once, each
 * decision read to the end of its continuation. Afterwards every key's tool executions are
 * counted: a duplicate or a missing execution is reported, never hidden. With `options.cpu`, the
 * CPU the decision half used is reported per decision, by process (bench/cpu.ts).
 */
export async function throughput(
  system: BenchSystem,
  options: { clients: number; runs: number; label: string; cpu?: () => CpuSnapshot },
): Promise<ThroughputResult> {
  const errors: string[] = [];
  const keys = Array.from({ length: options.runs }, (_, i) => `${options.label}-tp-${i}-${randomUUID()}`);
  const pausedBy: PausedRun[][] = Array.from({ length: options.clients }, () => []);
  const noMark = () => {};

  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    pausedBy.map(async (mine, client) => {
      while (next < keys.length) {
        const key = keys[next++];
        try {
          mine.push(await system.client(client).start({ key, threadId: `bench-${randomUUID()}` }, noMark));
        } catch (error) {
          errors.push(`start: ${(error as Error).message}`);
        }
      }
    }),
  );
  const pausedSeconds = (performance.now() - t0) / 1000;
  const paused = pausedBy.flat();

  let decided = 0;
  const cpuBefore = options.cpu?.();
  const t1 = performance.now();
  await Promise.all(
    pausedBy.map(async (mine, client) => {
      for (const run of mine) {
        try {
          await system.client(client).approve(run, noMark);
          decided += 1;
        } catch (error) {
          errors.push(`approve: ${(error as Error).message}`);
        }
      }
    }),
  );
  const decisionSeconds = (performance.now() - t1) / 1000;
  const cpuPerDecision = cpuBefore && options.cpu ? perDecision(cpuBefore, options.cpu(), decided) : undefined;

  const counts = await system.executions.executions(paused.map((run) => run.key));
  let duplicates = 0;
  let missing = 0;
  for (const count of counts.values()) {
    if (count > 1) duplicates += count - 1;
    if (count === 0) missing += 1;
  }
  return {
    clients: options.clients,
    runs: options.runs,
    pausedPerSecond: paused.length / pausedSeconds,
    decisionsPerSecond: decided / decisionSeconds,
    duplicates,
    missing,
    errors: errors.length,
    errorSamples: errors.slice(0, 3),
    ...(cpuPerDecision ? { cpuPerDecision } : {}),
  };
}
