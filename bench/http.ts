/**
 * The HTTP path of `npm run bench`: a production build of the app (`next build` into .next-bench,
 * then `next start` on 127.0.0.1) with the offline scripted model, driven like a browser would —
 * sign in through better-auth's route, POST /api/chat until the approval part, POST the decision
 * until the tool's output, read both UI message streams to their end.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { hashPassword } from 'better-auth/crypto';
import pg from 'pg';
import { ACCOUNTS, DEMO_PASSWORD, E2E_SERVER_ENV } from '../e2e/config';
import { dropRouteTypes } from '../scripts/build-types';
import { stopChild } from '../scripts/stop-child';
import type { BenchSystem, Milestone, PausedRun, RuntimeInstance } from './model';

const NEXT_BIN = 'node_modules/next/dist/bin/next';
const DIST_DIR = '.next-bench';

/**
 * Environment of the benchmark server: that of the end-to-end servers (plain http on 127.0.0.1, a
 * fixed secret, auth throttling off) with every per-minute rate limit out of the bench's way.
 */
export function serverEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const limits = Object.fromEntries(
    Object.keys(E2E_SERVER_ENV)
      .filter((name) => name.endsWith('_RATE_LIMIT_PER_MINUTE'))
      // 100,000 a minute: far above what the bench sends, and within every limit's accepted range.
      .map((name) => [name, '100000']),
  );
  return {
    ...process.env,
    ...E2E_SERVER_ENV,
    ...limits,
    DATABASE_URL: databaseUrl,
    NEXT_DIST_DIR: DIST_DIR,
    // The offline scripted model, at full speed: no provider key, no delays.
    OPENAI_API_KEY: '',
    ANTHROPIC_API_KEY: '',
    OPENAI_COMPATIBLE_BASE_URL: '',
    AI_GATEWAY_API_KEY: '',
    MODEL: '',
    SCRIPTED_MODEL_DELAY_MS: '0',
    DEMO_TOOL_DELAY_MS: '0',
  };
}

/**
 * A fingerprint of what the build is made of: every file git knows or would add (not ignored),
 * except the bench, the tests and the docs, with its content.
 */
function sourceFingerprint(): string {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { encoding: 'utf8' }).stdout ?? '';
  const hash = createHash('sha256');
  for (const file of listed.split('\0').filter(Boolean).sort()) {
    if (/^(bench|test|e2e)\//.test(file) || file.endsWith('.md') || !fs.existsSync(file)) continue;
    hash.update(file).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/**
 * Builds the app into .next-bench unless the build there is of this very checkout.
 * @param options.force build even when up to date
 * @param options.log file the build output goes to
 * @returns whether it built
 * @throws when `next build` fails (its output is in the log)
 */
export function buildApp(options: { databaseUrl: string; force: boolean; log: string }): boolean {
  const stamp = path.join(DIST_DIR, 'bench-source.txt');
  const fingerprint = sourceFingerprint();
  if (!options.force && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === fingerprint) return false;
  const out = fs.openSync(options.log, 'w');
  const build = spawnSync(process.execPath, [NEXT_BIN, 'build'], { env: serverEnv(options.databaseUrl), stdio: ['ignore', out, out] });
  fs.closeSync(out);
  if (build.status !== 0) throw new Error(`next build failed (exit ${build.status}); see ${options.log}`);
  dropRouteTypes(DIST_DIR);
  fs.writeFileSync(stamp, fingerprint);
  return true;
}

/** A running `next start`. */
export interface AppServer {
  url: string;
  /** the `next start` process */
  pid: number;
  stop: () => Promise<void>;
}

/**
 * Starts `next start` on 127.0.0.1:`port` with the .next-bench build and waits for /api/health.
 * @param options.profileDir when set, the server writes V8 CPU profiles (`--cpu-prof`) there on exit
 * @throws when it does not answer within 60 s or exits
 */
export async function startApp(options: { databaseUrl: string; port: number; log: string; profileDir?: string }): Promise<AppServer> {
  const out = fs.openSync(options.log, 'w');
  const env = serverEnv(options.databaseUrl);
  // Node refuses --cpu-prof in NODE_OPTIONS, so it is an argument of the server's own process.
  const profile = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, NEXT_BIN, 'start', '-p', String(options.port), '-H', '127.0.0.1'], {
    env,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const url = `http://127.0.0.1:${options.port}`;
  const stop = () => stopChild(child, 5_000);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return { url, pid: child.pid!, stop };
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`next start on ${options.port} did not come up; see ${options.log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function cookieOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

/**
 * Signs in through better-auth's email route.
 * @returns the session's `cookie` header value
 * @throws when the server does not answer 200
 */
export async function signIn(baseUrl: string, email: string, password = DEMO_PASSWORD): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`sign-in as ${email}: ${response.status} ${await response.text()}`);
  return cookieOf(response);
}

/**
 * End-user accounts `bench-client-<i>@example.com` (i = 1…count-1) with the demo password, written
 * as the demo seed writes its accounts (better-auth's own password hash), so they can sign in
 * through the HTTP route whatever the app's sign-up policy is.
 */
export async function createBenchUsers(databaseUrl: string, count: number) {
  const hash = await hashPassword(DEMO_PASSWORD);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let i = 1; i < count; i++) {
      const id = `bench-client-${i}`;
      await client.query(
        `INSERT INTO users (id, name, email, email_verified, role) VALUES ($1, $2, $3, true, 'user') ON CONFLICT (id) DO NOTHING`,
        [id, `Bench client ${i}`, `${id}@example.com`],
      );
      await client.query(
        `INSERT INTO accounts (id, account_id, provider_id, user_id, password) VALUES ($1, $2, 'credential', $2, $3) ON CONFLICT (id) DO NOTHING`,
        [`${id}-credential`, id, hash],
      );
    }
  } finally {
    await client.end();
  }
}

type UIPart = { type: string; data?: Record<string, unknown>; toolCallId?: string; errorText?: string };

/** Reads a UI message stream (SSE) to its end, handing each part to `onPart`. */
async function readUIStream(response: Response, onPart: (part: UIPart) => void) {
  if (response.status !== 200 || !response.body) throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of events) {
    if (event.data === '[DONE]') continue;
    onPart(JSON.parse(event.data) as UIPart);
  }
}

/** The text that makes the scripted model call `send-email` (approval by the requester); the key is the subject. */
export const sendEmailCommand = (key: string) => `/tool send-email ${JSON.stringify({ to: 'bench@example.com', subject: key, body: 'bench' })}`;

/** One signed-in HTTP client of the app. */
export function httpInstance(baseUrl: string, cookie: string): RuntimeInstance {
  const headers = { 'content-type': 'application/json', origin: baseUrl, cookie };
  return {
    async start({ key, threadId }, mark: (milestone: Milestone) => void): Promise<PausedRun> {
      const response = await fetch(`${baseUrl}/api/chat`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          id: threadId,
          messages: [{ id: `m-${threadId}`, role: 'user', parts: [{ type: 'text', text: sendEmailCommand(key) }] }],
        }),
      });
      let run: PausedRun | undefined;
      await readUIStream(response, (part) => {
        if (part.type === 'data-tool-call-approval' && !run && !part.data?.resumed) {
          run = { runId: String(part.data!.runId), toolCallId: String(part.data!.toolCallId), key };
          mark('approval');
        } else if (part.type === 'error' || part.type === 'data-run-error') {
          throw new Error(`chat stream failed: ${JSON.stringify(part)}`);
        }
      });
      if (!run) throw new Error('POST /api/chat ended without an approval part');
      return run;
    },
    async approve(run, mark) {
      const response = await fetch(`${baseUrl}/api/runs/${run.runId}/tool-calls/${encodeURIComponent(run.toolCallId)}/decision`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ approved: true }),
      });
      let sawOutput = false;
      await readUIStream(response, (part) => {
        if (part.type === 'tool-output-available' && !sawOutput) {
          sawOutput = true;
          mark('tool-result');
        } else if (part.type === 'tool-output-error' || part.type === 'error' || part.type === 'data-run-error') {
          throw new Error(`decision stream failed: ${JSON.stringify(part)}`);
        }
      });
      if (!sawOutput) throw new Error('POST decision ended without a tool output part');
    },
  };
}

/**
 * The app over HTTP as a `BenchSystem`: client 0 is the demo user Ada; clients 1… are end users
 * of their own (created here), so concurrent clients are different people, as in production.
 *
 * @param options.clients how many signed-in clients to prepare
 * @param options.serverPid the server's pid, so its CPU can be read (bench/cpu.ts)
 */
export async function createHttpSystem(options: { baseUrl: string; databaseUrl: string; clients: number; serverPid?: number }): Promise<BenchSystem> {
  await createBenchUsers(options.databaseUrl, options.clients);
  const cookies = [await signIn(options.baseUrl, ACCOUNTS.ada)];
  for (let i = 1; i < options.clients; i++) cookies.push(await signIn(options.baseUrl, `bench-client-${i}@example.com`));
  const clients = cookies.map((cookie) => httpInstance(options.baseUrl, cookie));
  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  return {
    name: 'http',
    client: (index) => clients[index % clients.length],
    serverPid: options.serverPid,
    executions: outboxExecutions(db),
    close: () => db.end(),
  };
}

/** Executions of send-email by key: it writes one outbox row per execution, the key as its subject. */
export function outboxExecutions(db: pg.Client): BenchSystem['executions'] {
  return {
    async executions(keys) {
      const { rows } = await db.query<{ subject: string; n: number }>(
        'SELECT subject, count(*)::int AS n FROM outbox_emails WHERE subject = ANY($1) GROUP BY subject',
        [keys],
      );
      const counts = new Map(keys.map((key) => [key, 0]));
      for (const row of rows) counts.set(row.subject, row.n);
      return counts;
    },
  };
}
