import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptySamples } from './measure';
import { renderReport, updateReadme, type BenchResult, type SystemReport } from './report';
import { fmtRatio, markdownTable, quantile, summarise } from './stats';

describe('bench statistics', () => {
  it('interpolates quantiles between closest ranks (R-7), whatever the input order', () => {
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
    expect(quantile([10], 0.95)).toBe(10);
    expect(quantile(Array.from({ length: 21 }, (_, i) => 20 - i), 0.95)).toBe(19);
    expect(() => quantile([], 0.5)).toThrow();
  });

  it('summarises p50, p95, min, max and mean, and nothing for no samples', () => {
    const summary = summarise([1, 2, 3, 4, 100])!;
    expect(summary).toMatchObject({ n: 5, p50: 3, min: 1, max: 100, mean: 22 });
    // rank 4 × 0.95 = 3.8: 80 % of the way from 4 to 100
    expect(summary.p95).toBeCloseTo(80.8, 9);
    expect(summarise([])).toBeNull();
  });

  it('formats ratios and escapes table cells', () => {
    expect(fmtRatio(1, 4)).toBe('0.25×');
    expect(fmtRatio(1, 0)).toBe('–');
    expect(markdownTable(['a', 'b'], [['x|y', '1']])).toBe('| a | b |\n|---|---:|\n| x\\|y | 1 |');
  });
});

function system(name: string, scale: number): SystemReport {
  const primary = emptySamples();
  const secondary = emptySamples();
  for (let i = 0; i <= 20; i++) {
    for (const samples of [primary, secondary]) {
      samples.toApproval.push(10 * scale + i);
      samples.toPaused.push(12 * scale + i);
      samples.toToolResult.push(5 * scale + i);
      samples.toFinished.push(20 * scale + i);
      samples.sqlBeforeApproval.push(3 * scale);
      samples.sqlPerStream.push(4 * scale);
      samples.sqlBeforeTool.push(2 * scale);
      samples.sqlPerApproval.push(6 * scale);
    }
  }
  const batch = { clients: 20, runs: 100, pausedPerSecond: 100 / scale, decisionsPerSecond: 50 / scale, duplicates: 0, missing: 0, errors: 0, errorSamples: [] };
  return { name, primary, secondary, throughput: [batch, batch, batch] };
}

const result: BenchResult = {
  startedAt: '2026-11-30T08:00:00.000Z',
  machine: {
    cores: 2,
    cpu: 'test cpu',
    loadAverageStart: [1, 1, 1],
    loadAverageEnd: [2, 2, 2],
    node: 'v20.20.2',
    postgres: '18.4',
    commit: '0123456789abcdef',
    dirty: false,
    versions: { '@mastra/core': '1.71.0', '@mastra/pg': '1.27.1', '@mastra/memory': '1.31.0' },
  },
  config: { n: 20, rounds: 3, warmup: 5, clients: 20, throughputRuns: 100, poolSize: 10, inboxRows: 1_000_000 },
  systems: { countersign: system('countersign', 1), mastra: system('mastra', 2), http: system('http', 3) },
  inbox: {
    rows: 1_000_000,
    pageSize: 50,
    depth: 900_000,
    firstPage: summarise([1, 2, 3]),
    deepPage: summarise([4, 5, 6]),
    seeded: true,
  },
};

describe('bench report', () => {
  it('puts each figure side by side with the ratio Countersign / Mastra and the HTTP overhead', () => {
    const table = renderReport(result);
    const row = (label: string) => table.split('\n').find((line) => line.startsWith(`| ${label}`))?.split(' | ');
    // 21 samples each (i = 0…20): Mastra 20+i (p50 30, p95 39), Countersign 10+i, HTTP 30+i.
    expect(row('stream start → approval chunk')).toEqual([
      '| stream start → approval chunk (ms)',
      '30.0 / 39.0',
      '20.0 / 29.0',
      '0.67× / 0.74×',
      '40.0 / 49.0',
      '20.0 |',
    ]);
    expect(row('decisions/s')?.slice(1, 5)).toEqual(['25.0 (0 dup., 0 missing)', '50.0 (0 dup., 0 missing)', '2.00×', '16.7 (0 dup., 0 missing)']);
    expect(row('SQL statements per approval')?.slice(1, 4)).toEqual(['4.0 / 12.0', '2.0 / 6.0', '0.50×']);
    expect(row('inbox page after 900,000 rows')?.[2]).toBe('5.0 / 5.9');
    expect(table).toContain('60 samples per latency figure (3 interleaved rounds × 20');
    // Results without the classifier figure or CPU per decision (older files) render without their rows.
    expect(row('classify call')).toBeUndefined();
    expect(row('CPU per decision')).toBeUndefined();
  });

  it('reports CPU per decision by process, over HTTP the server and its clients apart', () => {
    const withCpu = (s: SystemReport, cpu: { bench: number; server: number | null; postgres: number | null }[]): SystemReport => ({
      ...s,
      throughput: s.throughput.map((batch, i) => ({ ...batch, cpuPerDecision: cpu[i] })),
    });
    const systems = {
      countersign: withCpu(result.systems.countersign, [{ bench: 3, server: null, postgres: 4 }, { bench: 2, server: null, postgres: 5 }, { bench: 4, server: null, postgres: 6 }]),
      mastra: withCpu(result.systems.mastra, [{ bench: 10, server: null, postgres: 4 }, { bench: 12, server: null, postgres: 6 }, { bench: 11, server: null, postgres: 5 }]),
      http: withCpu(result.systems.http, [{ bench: 2, server: 9, postgres: 6 }, { bench: 2, server: 8, postgres: 7 }, { bench: 3, server: 10, postgres: 6 }]),
    };
    const table = renderReport({ ...result, systems });
    const row = table.split('\n').find((line) => line.startsWith('| CPU per decision'))?.split(' | ');
    // Medians per process: Mastra 11 / 5, Countersign 3 / 5; of the sums per round, Countersign 7 (7, 7, 10) ÷ Mastra 16 (14, 18, 16).
    expect(row?.slice(1)).toEqual(['11.0 / 5.0', '3.0 / 5.0', '0.44×', '9.0 + 2.0 / 6.0', '– |']);
  });

  it('takes HTTP\'s overhead over the same agent in process when that was measured', () => {
    // The app's agent in process: 25+i for the approval chunk (p50 35), so HTTP (30+i) adds 5.
    const app = { ...system('app', 2.5), throughput: [] };
    const table = renderReport({ ...result, systems: { ...result.systems, app } });
    const row = (label: string) => table.split('\n').find((line) => line.startsWith(`| ${label}`))?.split(' | ');
    expect(row('stream start → approval chunk')?.slice(1)).toEqual(['30.0 / 39.0', '20.0 / 29.0', '0.67× / 0.74×', '40.0 / 49.0', '5.0 |']);
    expect(table).toContain('HTTP − in process: the HTTP column minus the same agent');
  });

  it('reports the live updates over HTTP: another’s decision into the requester’s open chat, a new call into an open inbox', () => {
    const table = renderReport({ ...result, live: { decisionToChat: summarise([100, 120, 140]), newCallToInbox: summarise([50, 60, 70, 80]) } });
    const row = (label: string) => table.split('\n').find((line) => line.startsWith(`| ${label}`))?.split(' | ');
    // Only the HTTP column has them: p50 120, p95 138 (R-7 between 120 and 140); p50 65, p95 78.5.
    expect(row('decision by another → event in the requester\'s open chat (ms)')?.slice(1)).toEqual(['–', '–', '–', '120 / 138', '– |']);
    expect(row('new call → open inbox (ms)')?.slice(1)).toEqual(['–', '–', '–', '65.0 / 78.5', '– |']);
    // Results from before the live figures (or without HTTP) render without their rows.
    expect(renderReport(result)).not.toContain('open inbox');
    expect(renderReport({ ...result, live: null })).not.toContain('open chat');
  });

  it('reports the classifier’s added latency on the scripted model', () => {
    const table = renderReport({ ...result, classifier: { call: summarise([1, 2, 3]), cached: summarise([0.01, 0.02, 0.03]) } });
    const row = (label: string) => table.split('\n').find((line) => line.startsWith(`| ${label}`))?.split(' | ');
    expect(row('classify call, scripted decision model')?.slice(1, 3)).toEqual(['–', '2.0 / 2.9']);
    expect(row('classify call answered from the cache')?.[2]).toBe('0.0 / 0.0');
  });

  it('times the classifier in process: a score each call, cached calls from the cache', async () => {
    const { classifierBench } = await import('./classifier');
    const measured = await classifierBench(5);
    expect(measured.call).toMatchObject({ n: 5 });
    expect(measured.cached).toMatchObject({ n: 5 });
    expect(measured.cached!.p50).toBeLessThanOrEqual(measured.call!.p95);
  });

  it('replaces only what stands between the README markers, and refuses a README without them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-readme-'));
    const file = path.join(dir, 'README.md');
    fs.writeFileSync(file, 'before\n<!-- bench:start -->\nold table\n<!-- bench:end -->\nafter\n');
    updateReadme(file, '| new |', 'bench/results/x.json');
    expect(fs.readFileSync(file, 'utf8')).toBe(
      'before\n<!-- bench:start -->\n| new |\n\nFull results: `bench/results/x.json`.\n<!-- bench:end -->\nafter\n',
    );
    fs.writeFileSync(file, 'no markers\n');
    expect(() => updateReadme(file, '| new |', 'x.json')).toThrow(/markers/);
    fs.rmSync(dir, { recursive: true });
  });
});
