// The server the Playwright tests run against: a fresh embedded PostgreSQL (or E2E_DATABASE_URL,
// which is wiped), migrated and seeded, and a production build of the app on E2E_PORT.
import { spawn, spawnSync } from 'node:child_process';
import { startEmbeddedPostgres } from '../lib/db/embedded';
import { migrate } from '../lib/db/migrate';
import { seed } from '../lib/demo/seed';
import { resetDatabase } from '../test/support/reset';
import { E2E_DB, E2E_PORT, E2E_SERVER_ENV } from '../e2e/config';

const external = process.env.E2E_DATABASE_URL;
const db = external ? { url: external, stop: async () => {} } : await startEmbeddedPostgres(E2E_DB);
await resetDatabase(db.url);
await migrate(db.url);
await seed(db.url);

const env = { ...process.env, ...E2E_SERVER_ENV, DATABASE_URL: db.url, NEXT_DIST_DIR: '.next-e2e' };
const next = 'node_modules/next/dist/bin/next';
if (!process.env.E2E_SKIP_BUILD) {
  const build = spawnSync(process.execPath, [next, 'build'], { stdio: 'inherit', env });
  if (build.status !== 0) {
    await db.stop();
    process.exit(build.status ?? 1);
  }
}
const server = spawn(process.execPath, [next, 'start', '-p', String(E2E_PORT), '-H', '127.0.0.1'], { stdio: 'inherit', env });

async function shutdown() {
  server.kill('SIGTERM');
  await db.stop().catch(() => {});
  process.exit(0);
}
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
server.on('exit', () => void shutdown());
