// One end-to-end stack: a fresh embedded PostgreSQL (or E2E_DATABASE_URL, which is wiped), migrated
// and seeded, and `next start` of the e2e build (.next-e2e, made by e2e/global-setup.ts) on this
// worker's port (e2e/config.ts). Started by each Playwright worker (e2e/stack.ts); stops on SIGTERM,
// when the server exits, or when the worker that started it is gone.
import { spawn } from 'node:child_process';
import { startEmbeddedPostgres } from '../lib/db/embedded';
import { migrate } from '../lib/db/migrate';
import { seed } from '../lib/demo/seed';
import { resetDatabase } from '../test/support/reset';
import { stopChild } from './stop-child';
import { E2E_DB, E2E_PORT, E2E_SERVER_ENV, nextStartCommand } from '../e2e/config';

const external = process.env.E2E_DATABASE_URL;
const db = external ? { url: external, stop: async () => {} } : await startEmbeddedPostgres(E2E_DB);
await resetDatabase(db.url);
await migrate(db.url);
await seed(db.url);

const env = { ...process.env, ...E2E_SERVER_ENV, DATABASE_URL: db.url, NEXT_DIST_DIR: '.next-e2e' };
const server = spawn(...nextStartCommand(E2E_PORT), {
  stdio: ['ignore', 'ignore', 'inherit'],
  env,
});

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  // The server first, then its database: a server outliving this script would hold the port.
  await stopChild(server);
  await db.stop().catch(() => {});
  process.exit(0);
}
// However this script ends (an uncaught error included), its server does not outlive it: an orphaned
// `next start` once kept running after a suite, retrying its stopped database. SIGKILL is all a
// process may send while exiting; the server has nothing to save.
process.on('exit', () => {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
});
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
server.on('exit', () => void shutdown());
// A worker killed outright cannot stop us: once we are re-parented, nobody will, so stop.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void shutdown();
}, 1_000).unref();
