/**
 * `npm run bench`: Countersign's runtime side by side with the seed framework (Mastra), in one
 * process, in interleaved rounds, on one embedded PostgreSQL server (a database each), plus the
 * app over HTTP (production build) with its live updates (bench/live.ts), and the inbox's keyset
 * pages at 1,000,000 pending calls.
 * Writes bench/results/<timestamp>.json and prints a markdown table; `--readme` also puts the
 * table in README.md between the bench markers. Not part of `npm test`.
 *
 * Options: --n (samples per figure and round, default 40), --rounds (3), --warmup (5),
 * --clients (20), --throughput-runs (400 per round: a batch must last long enough that its start and
 * end, when fewer than 20 clients are busy, do not decide the rate), --no-http, --no-inbox, --inbox-rows
 * (1000000), --rebuild, --readme, --profile (CPU profiles of the HTTP server, written to
 * .data/bench/profiles when it stops; open them in Chrome DevTools), --classifier-only (only the
 * classifier's figure, printed; no database, no peer, no result file). Environment: BENCH_PG_PORT (54359), BENCH_PORT (3300),
 * BENCH_DATABASE_URL (any PostgreSQL server to use instead of the embedded one; databases named
 * bench_* are dropped and created there).
 *
 * Run as `node --conditions=react-server --import tsx bench/run.ts` (what `npm run bench` does): the
 * inbox bench imports the route's query module, which is marked server-only.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../lib/db/embedded';
import { migrate } from '../lib/db/migrate';
import { seed } from '../lib/demo/seed';
import { classifierBench } from './classifier';
import { cpuSampler, postmasterPid } from './cpu';
import { createCountersignSystem } from './countersign';
import { createAppAgentSystem } from './app-agent';
import { buildApp, createHttpSystem, signIn, startApp } from './http';
import { liveBench, type LiveResult } from './live';
import { ACCOUNTS } from '../e2e/config';
import { inboxBench, seedPendingCalls, type InboxResult } from './inbox';
import { emptySamples, latencyLoop, mergeSamples, throughput, type ThroughputResult } from './measure';
import type { BenchSystem } from './model';
import { renderReport, updateReadme, type SystemReport } from './report';
import { summarise } from './stats';

const { values: options } = parseArgs({
  options: {
    n: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '5' },
    clients: { type: 'string', default: '20' },
    'throughput-runs': { type: 'string', default: '400' },
    'inbox-rows': { type: 'string', default: '1000000' },
    'no-http': { type: 'boolean', default: false },
    'no-inbox': { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    readme: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'classifier-only': { type: 'boolean', default: false },
  },
});
const N = positive('n');
const ROUNDS = positive('rounds');
const WARMUP = Number(options.warmup);
const CLIENTS = positive('clients');
const THROUGHPUT_RUNS = positive('throughput-runs');
const INBOX_ROWS = positive('inbox-rows');
const POOL_SIZE = 10;
const PEER_DIR = path.resolve('bench/peer');
const WORK_DIR = path.resolve('.data/bench');
const PG_DIR = path.resolve('.data/pg-bench');

function positive(name: keyof typeof options): number {
  const value = Number(options[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

const log = (line: string) => console.log(`[bench] ${line}`);

/** Everything this process starts, stopped in reverse order on exit or interrupt. */
const cleanups: (() => Promise<unknown>)[] = [];
async function cleanup() {
  while (cleanups.length > 0) {
    const stop = cleanups.pop()!;
    await stop().catch((error) => console.error('[bench] cleanup:', (error as Error).message));
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** The bench talks to 127.0.0.1 only: any other fetch fails loudly instead of leaving the machine. */
function keepTrafficLocal() {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
      return Promise.reject(new Error(`bench: refused to contact ${url.host}; only 127.0.0.1 is allowed`));
    }
    return realFetch(input, init);
  };
}

/** Installs the peer's packages into bench/peer/node_modules when missing or older than its package.json. */
function ensurePeerInstalled() {
  const marker = path.join(PEER_DIR, 'node_modules/.package-lock.json');
  const manifest = path.join(PEER_DIR, 'package.json');
  if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(manifest).mtimeMs) return;
  log('installing the seed framework into bench/peer (missing or older than its package.json)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // Mastra declares Node ≥ 22.13; it runs here on Node 20, so npm's engine warnings are kept quiet.
  const result = spawnSync(npm, ['install', '--prefix', PEER_DIR, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm install --prefix bench/peer failed');
  const now = new Date();
  fs.utimesSync(marker, now, now);
}

function packageVersion(file: string): string | null {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}

function git(...args: string[]): string {
  return (spawnSync('git', args, { encoding: 'utf8' }).stdout ?? '').trim();
}

async function main() {
  keepTrafficLocal();
  // First, while nothing else runs in this process: the classifier's added latency.
  log('classifier: timing classify calls on the scripted decision model…');
  const classifier = await classifierBench(N * ROUNDS);
  log(`classify call: p50 ${classifier.call!.p50.toFixed(2)} ms, p95 ${classifier.call!.p95.toFixed(2)} ms (cached p50 ${classifier.cached!.p50.toFixed(3)} ms, ${classifier.call!.n} samples)`);
  if (options['classifier-only']) return;

  fs.mkdirSync(WORK_DIR, { recursive: true });
  ensurePeerInstalled();
  const startedAt = new Date();
  const loadStart = os.loadavg();

  // One PostgreSQL server, one database per system.
  const server = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startEmbeddedPostgres({ dir: PG_DIR, port: Number(process.env.BENCH_PG_PORT ?? 54359) });
  cleanups.push(server.stop);
  const urlOf = (database: string) => {
    const url = new URL(server.url);
    url.pathname = `/${database}`;
    return url.toString();
  };
  // Its CPU is read from /proc only when it is the embedded server, on this machine.
  const postgresPid = process.env.BENCH_DATABASE_URL ? null : postmasterPid(PG_DIR);
  const admin = new pg.Client({ connectionString: urlOf('postgres') });
  await admin.connect();
  const postgresVersion = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  for (const database of ['bench_countersign', 'bench_mastra', 'bench_http']) {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${database}`);
  }
  const inboxExists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'bench_inbox'`)).rowCount === 1;
  if (!inboxExists && !options['no-inbox']) await admin.query('CREATE DATABASE bench_inbox');
  await admin.end();
  await migrate(urlOf('bench_countersign'));

  // The app is built first: the build is the heaviest step, and no runtime is open yet.
  let http: BenchSystem | undefined;
  let appAgent: BenchSystem | undefined;
  let appUrl: string | undefined;
  if (!options['no-http']) {
    const httpUrl = urlOf('bench_http');
    await migrate(httpUrl);
    await seed(httpUrl);
    log('building the app into .next-bench (skipped when up to date)…');
    const built = buildApp({ databaseUrl: httpUrl, force: options.rebuild, log: path.join(WORK_DIR, 'next-build.log') });
    log(built ? 'built' : 'build is up to date');
    const profileDir = options.profile ? path.join(WORK_DIR, 'profiles') : undefined;
    const app = await startApp({
      databaseUrl: httpUrl,
      port: Number(process.env.BENCH_PORT ?? 3300),
      log: path.join(WORK_DIR, 'next-start.log'),
      profileDir,
    });
    if (profileDir) log(`CPU profiles of the HTTP server go to ${profileDir} when it stops`);
    cleanups.push(app.stop);
    appUrl = app.url;
    http = await createHttpSystem({ baseUrl: app.url, databaseUrl: httpUrl, clients: CLIENTS, serverPid: app.pid });
    cleanups.push(http.close);
    // The same agent, model, tool and database in this process: what HTTP adds is the difference.
    appAgent = await createAppAgentSystem(httpUrl);
    cleanups.push(appAgent.close);
  }

  const countersign = createCountersignSystem(urlOf('bench_countersign'), { poolSize: POOL_SIZE });
  cleanups.push(countersign.close);
  type CreateMastraSystem = (databaseUrl: string, options: { poolSize: number }) => Promise<BenchSystem>;
  // Imported by path at run time, so the type check of the app never needs the peer's packages.
  const peer = (await import(pathToFileURL(path.join(PEER_DIR, 'mastra.ts')).href)) as { createMastraSystem: CreateMastraSystem };
  const mastra = await peer.createMastraSystem(urlOf('bench_mastra'), { poolSize: POOL_SIZE });
  cleanups.push(mastra.close);
  const systems = [countersign, mastra, ...(http ? [http] : []), ...(appAgent ? [appAgent] : [])];

  const collected = new Map(
    systems.map((system) => [system.name, { primary: emptySamples(), secondary: emptySamples(), throughput: [] as ThroughputResult[] }]),
  );
  for (let round = 1; round <= ROUNDS; round++) {
    // Each round starts with another system, so none always runs on a freshly idle machine.
    const order = systems.map((_, i) => systems[(i + round - 1) % systems.length]);
    for (const system of order) {
      const into = collected.get(system.name)!;
      const label = `${system.name}-r${round}`;
      const primary = await latencyLoop(system, { count: N, warmup: WARMUP, decider: system.client(0), label: `${label}-a` });
      mergeSamples(into.primary, primary);
      if (system.secondary) {
        mergeSamples(into.secondary, await latencyLoop(system, { count: N, warmup: WARMUP, decider: system.secondary, label: `${label}-b` }));
      }
      const cpu = cpuSampler({ serverPid: system.serverPid, postgresPid });
      const batch = system.latencyOnly ? undefined : await throughput(system, { clients: CLIENTS, runs: THROUGHPUT_RUNS, label, cpu });
      if (batch) into.throughput.push(batch);
      log(
        `round ${round}/${ROUNDS} ${system.name.padEnd(11)} ` +
          `approval p50 ${summarise(primary.toApproval)!.p50.toFixed(1)} ms, ` +
          `tool result p50 ${summarise(primary.toToolResult)!.p50.toFixed(1)} ms, ` +
          `finished p50 ${summarise(primary.toFinished)!.p50.toFixed(1)} ms` +
          (batch
            ? `, ${batch.decisionsPerSecond.toFixed(0)} decisions/s (${batch.duplicates} duplicates, ${batch.missing} missing, ${batch.errors} errors)`
            : ''),
      );
    }
  }

  // Live updates over HTTP: another person's decision into the requester's open chat, a new call into an open inbox.
  let live: LiveResult | undefined;
  if (appUrl) {
    log(`live updates: ${N * ROUNDS} samples each over HTTP…`);
    live = await liveBench({
      baseUrl: appUrl,
      requester: await signIn(appUrl, ACCOUNTS.ada),
      reviewer: await signIn(appUrl, ACCOUNTS.rita),
      count: N * ROUNDS,
      warmup: WARMUP,
    });
    log(`decision by another → open chat p50 ${live.decisionToChat!.p50.toFixed(1)} ms; new call → open inbox p50 ${live.newCallToInbox!.p50.toFixed(1)} ms`);
  }

  let inbox: InboxResult | undefined;
  if (!options['no-inbox']) {
    const inboxUrl = urlOf('bench_inbox');
    await migrate(inboxUrl);
    log(`seeding ${INBOX_ROWS.toLocaleString('en')} pending calls (reused when already there)…`);
    const seeded = await seedPendingCalls(inboxUrl, INBOX_ROWS);
    inbox = await inboxBench({
      databaseUrl: inboxUrl,
      rows: INBOX_ROWS,
      depth: Math.floor(INBOX_ROWS * 0.9),
      count: N,
      budgetMs: 60_000,
      seeded,
    });
  }

  const reports: Record<string, SystemReport> = {};
  for (const [name, data] of collected) reports[name] = { name, ...data };
  const finishedAt = new Date();
  const result = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    machine: {
      cores: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      loadAverageStart: loadStart,
      loadAverageEnd: os.loadavg(),
      platform: `${os.platform()} ${os.release()}`,
      node: process.version,
      postgres: postgresVersion,
      commit: git('rev-parse', 'HEAD'),
      dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
      versions: {
        ai: packageVersion('node_modules/ai/package.json'),
        next: packageVersion('node_modules/next/package.json'),
        prisma: packageVersion('node_modules/@prisma/client/package.json'),
        '@mastra/core': packageVersion(path.join(PEER_DIR, 'node_modules/@mastra/core/package.json')),
        '@mastra/pg': packageVersion(path.join(PEER_DIR, 'node_modules/@mastra/pg/package.json')),
        '@mastra/memory': packageVersion(path.join(PEER_DIR, 'node_modules/@mastra/memory/package.json')),
      },
    },
    config: { n: N, rounds: ROUNDS, warmup: WARMUP, clients: CLIENTS, throughputRuns: THROUGHPUT_RUNS, poolSize: POOL_SIZE, inboxRows: INBOX_ROWS },
    systems: reports,
    inbox: inbox ?? null,
    classifier,
    live: live ?? null,
  };
  const rendered = renderReport(result);
  fs.mkdirSync('bench/results', { recursive: true });
  const file = path.join('bench/results', `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ ...result, table: rendered }, null, 2)}\n`);
  console.log(`\n${rendered}\n`);
  log(`results: ${file}`);
  if (options.readme) {
    updateReadme('README.md', rendered, file);
    log('README.md updated');
  }
  // A decision lost or run twice is a failure, whatever the timings.
  for (const report of Object.values(reports)) {
    const faults = report.throughput.reduce((sum, batch) => sum + batch.duplicates + batch.missing + batch.errors, 0);
    if (faults > 0) {
      console.error(`[bench] ${report.name}: ${faults} duplicate, missing or failed decisions, e.g. ${report.throughput.flatMap((b) => b.errorSamples)[0] ?? ''}`);
      process.exitCode = 1;
    }
  }
}

try {
  await main();
  await cleanup();
} catch (error) {
  console.error('[bench] failed:', error);
  await cleanup();
  process.exitCode = 1;
}
