/** The table `npm run bench` prints, writes into its JSON and (with `--readme`) into README.md. */
import fs from 'node:fs';
import type { ClassifierResult } from './classifier';
import type { InboxResult } from './inbox';
import type { LiveResult } from './live';
import type { CpuPerDecision } from './cpu';
import type { LatencySamples, ThroughputResult } from './measure';
import { fmt, fmtRatio, fmtSummary, markdownTable, quantile, summarise, type Summary } from './stats';

/** Everything measured for one system, pooled over the rounds. */
export interface SystemReport {
  name: string;
  /** stream and decision on the same runtime object */
  primary: LatencySamples;
  /** stream on the primary, decision on a second instance sharing only the database */
  secondary: LatencySamples;
  /** one batch per round */
  throughput: ThroughputResult[];
}

/** What bench/run.ts measured (the JSON file holds this plus the rendered table). */
export interface BenchResult {
  startedAt: string;
  machine: {
    cores: number;
    cpu: string;
    loadAverageStart: number[];
    loadAverageEnd: number[];
    node: string;
    postgres: string;
    commit: string;
    dirty: boolean;
    versions: Record<string, string | null>;
  };
  config: { n: number; rounds: number; warmup: number; clients: number; throughputRuns: number; poolSize: number; inboxRows: number };
  systems: Record<string, SystemReport>;
  inbox: InboxResult | null;
  /** The classifier's added latency on the scripted decision model (absent in older results). */
  classifier?: ClassifierResult | null;
  /** Live updates over HTTP (bench/live.ts; absent in older results and without HTTP). */
  live?: LiveResult | null;
}

const README_START = '<!-- bench:start -->';
const README_END = '<!-- bench:end -->';

const median = (values: number[]) => (values.length === 0 ? null : quantile(values, 0.5));

/**
 * Renders the side-by-side table: p50 / p95 per figure for Mastra, Countersign in process and over
 * HTTP, the ratio Countersign / Mastra (below 1: Countersign is faster or does fewer statements;
 * for rates above 1 is better), and HTTP's overhead at p50 over the same agent in process (the
 * `app` system, when measured; else over the Countersign column).
 */
export function renderReport(result: BenchResult): string {
  const cs = result.systems.countersign;
  const ma = result.systems.mastra;
  const http = result.systems.http;
  // HTTP's overhead is taken over the same agent in process (bench/app-agent.ts) when it was
  // measured; results from before it existed compare with the bench's own agent.
  const inProcess = result.systems.app ?? cs;
  const rows: string[][] = [];

  const latency = (label: string, pick: (s: SystemReport) => number[], withHttp: boolean) => {
    const a = summarise(pick(ma));
    const c = summarise(pick(cs));
    const h = withHttp && http ? summarise(pick(http)) : null;
    const reference = summarise(pick(inProcess));
    rows.push([
      label,
      fmtSummary(a),
      fmtSummary(c),
      a && c ? `${fmtRatio(c.p50, a.p50)} / ${fmtRatio(c.p95, a.p95)}` : '–',
      fmtSummary(h),
      h && reference ? `${fmt(h.p50 - reference.p50)}` : '–',
    ]);
  };
  latency('stream start → approval chunk (ms)', (s) => s.primary.toApproval, true);
  latency('stream start → paused, stream end (ms)', (s) => s.primary.toPaused, true);
  latency('approve → tool result (ms)', (s) => s.primary.toToolResult, true);
  latency('approve → run finished (ms)', (s) => s.primary.toFinished, true);
  latency('second instance: approve → tool result (ms)', (s) => s.secondary.toToolResult, false);
  latency('second instance: approve → run finished (ms)', (s) => s.secondary.toFinished, false);

  // Live updates, over HTTP only: what another person's decision and a new call take to reach an open page.
  if (result.live) {
    const live = (label: string, summary: Summary | null) => rows.push([label, '–', '–', '–', fmtSummary(summary), '–']);
    live('decision by another → event in the requester\'s open chat (ms)', result.live.decisionToChat);
    live('new call → open inbox (ms)', result.live.newCallToInbox);
  }

  const rate = (label: string, pick: (t: ThroughputResult) => number, withChecks: boolean) => {
    const value = (s: SystemReport | undefined) => (s ? median(s.throughput.map(pick)) : null);
    const checks = (s: SystemReport | undefined) => {
      if (!s || !withChecks) return '';
      const duplicates = s.throughput.reduce((sum, t) => sum + t.duplicates, 0);
      const missing = s.throughput.reduce((sum, t) => sum + t.missing, 0);
      const errors = s.throughput.reduce((sum, t) => sum + t.errors, 0);
      return ` (${duplicates} dup., ${missing} missing${errors ? `, ${errors} errors` : ''})`;
    };
    rows.push([
      label,
      `${fmt(value(ma))}${checks(ma)}`,
      `${fmt(value(cs))}${checks(cs)}`,
      fmtRatio(value(cs), value(ma)),
      http ? `${fmt(value(http))}${checks(http)}` : '–',
      '–',
    ]);
  };
  rate(`decisions/s, ${result.config.clients} concurrent clients`, (t) => t.decisionsPerSecond, true);
  rate(`runs paused/s, ${result.config.clients} concurrent clients`, (t) => t.pausedPerSecond, false);

  // CPU per decision (bench/cpu.ts), median over the rounds; absent in results from before it was read.
  const cpu = (s: SystemReport | undefined, pick: (c: CpuPerDecision) => number | null) => {
    const values = (s?.throughput ?? []).map((t) => (t.cpuPerDecision ? pick(t.cpuPerDecision) : null)).filter((v): v is number => v !== null);
    return median(values);
  };
  const total = (s: SystemReport | undefined) => cpu(s, (c) => (c.postgres === null ? null : c.bench + (c.server ?? 0) + c.postgres));
  if ([cs, ma, http].some((s) => total(s) !== null)) {
    const inProcessCell = (s: SystemReport) => `${fmt(cpu(s, (c) => c.bench))} / ${fmt(cpu(s, (c) => c.postgres))}`;
    rows.push([
      'CPU per decision (ms): Node / PostgreSQL; over HTTP, server + clients / PostgreSQL',
      inProcessCell(ma),
      inProcessCell(cs),
      fmtRatio(total(cs), total(ma)),
      http ? `${fmt(cpu(http, (c) => c.server))} + ${fmt(cpu(http, (c) => c.bench))} / ${fmt(cpu(http, (c) => c.postgres))}` : '–',
      '–',
    ]);
  }

  const statements = (label: string, before: (s: LatencySamples) => number[], total: (s: LatencySamples) => number[]) => {
    const cell = (s: SystemReport) => `${fmt(median(before(s.primary)))} / ${fmt(median(total(s.primary)))}`;
    rows.push([label, cell(ma), cell(cs), fmtRatio(median(total(cs.primary)), median(total(ma.primary))), '–', '–']);
  };
  statements('SQL statements per stream(): before approval chunk / all', (s) => s.sqlBeforeApproval, (s) => s.sqlPerStream);
  statements('SQL statements per approval: before the tool runs / all', (s) => s.sqlBeforeTool, (s) => s.sqlPerApproval);

  if (result.inbox) {
    const inbox = result.inbox;
    const page = (label: string, summary: Summary | null) => rows.push([label, '–', fmtSummary(summary), '–', '–', '–']);
    page(`inbox first page, ${inbox.pageSize} of ${inbox.rows.toLocaleString('en')} pending (ms)`, inbox.firstPage);
    page(`inbox page after ${inbox.depth.toLocaleString('en')} rows (ms)`, inbox.deepPage);
  }

  if (result.classifier) {
    rows.push(['classify call, scripted decision model, in process (ms)', '–', fmtSummary(result.classifier.call), '–', '–', '–']);
    rows.push(['classify call answered from the cache (ms)', '–', fmtSummary(result.classifier.cached), '–', '–', '–']);
  }

  const m = result.machine;
  const samples = result.config.n * result.config.rounds;
  const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(' ');
  return [
    markdownTable(['figure (p50 / p95)', 'Mastra', 'Countersign', 'Countersign / Mastra', 'Countersign over HTTP', 'HTTP − in process (p50 ms)'], rows),
    '',
    `${result.startedAt.slice(0, 16).replace('T', ' ')} UTC, commit ${m.commit.slice(0, 10)}${m.dirty ? ' (uncommitted changes)' : ''}; ` +
      `${m.cores} cores (${m.cpu}), load average ${load(m.loadAverageStart)} → ${load(m.loadAverageEnd)}; Node ${m.node}, PostgreSQL ${m.postgres} (embedded, one server, a database each). ` +
      `${samples} samples per latency figure (${result.config.rounds} interleaved rounds × ${result.config.n}, after ${result.config.warmup} warm-up cycles each); ` +
      `rates: median of ${result.config.rounds} rounds of ${result.config.throughputRuns} runs. ` +
      `Mastra: @mastra/core ${m.versions['@mastra/core']}, @mastra/pg ${m.versions['@mastra/pg']}, @mastra/memory ${m.versions['@mastra/memory']}; ` +
      `pools of ${result.config.poolSize} connections each. ` +
      'CPU per decision: the decision half of each throughput batch, from /proc; Node is the bench process (in process the runtime and its clients, one system at a time), PostgreSQL its server and every backend.' +
      (result.systems.app
        ? ' HTTP − in process: the HTTP column minus the same agent (the app\'s ops-agent, scripted model, send-email) run in process on the same database.'
        : ''),
  ].join('\n');
}

/**
 * Replaces what stands between the bench markers in `file` with `table` and a link to the JSON.
 * @throws when the markers are missing
 */
export function updateReadme(file: string, table: string, resultFile: string) {
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(README_START);
  const end = text.indexOf(README_END);
  if (start < 0 || end < start) throw new Error(`${file} has no ${README_START} … ${README_END} markers`);
  const body = `${README_START}\n${table}\n\nFull results: \`${resultFile}\`.\n${README_END}`;
  fs.writeFileSync(file, text.slice(0, start) + body + text.slice(end + README_END.length));
}
