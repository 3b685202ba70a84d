// `npm run dev` / `npm start`: database up, migrated and seeded, then Next.js with DATABASE_URL set.
import { spawn } from 'node:child_process';
import { migrate } from '../lib/db/migrate';
import { seedFreshDatabase } from '../lib/demo/seed';
import { envOrExit } from '../lib/env';
import { openDatabase } from './database';
import { stopChild } from './stop-child';

const mode = process.argv[2] === 'start' ? 'start' : 'dev';
// A bad variable stops here, before a database is started (Next checks again in instrumentation.ts).
envOrExit();
const db = await openDatabase();
await migrate(db.url);
// The demo accounts' password is public, so `npm start` creates them only when asked to.
const accounts = mode === 'dev' || envOrExit().COUNTERSIGN_DEMO_ACCOUNTS;
const fresh = await seedFreshDatabase(db.url, { accounts });
if (fresh.seeded !== null) console.log(`Seeded ${fresh.seeded} demo rows${accounts ? ' and accounts' : ' (no accounts)'}.`);
if (!fresh.hasAccounts) {
  console.log('No accounts yet. Create the first admin: npm run admin:create -- --email you@example.com --name "Your Name"');
}

const nextArgs = [mode, ...process.argv.slice(3)];
// A process group of its own (detached), so stopping it stops the server `next dev` starts in a
// process of its own too; a Ctrl+C reaches this script, which stops the group (stop-child.ts).
const child = spawn(process.execPath, ['node_modules/next/dist/bin/next', ...nextArgs], {
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: true,
  env: { ...process.env, DATABASE_URL: db.url },
});

let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  // The server first, then its database: a server outliving this script would hold the port.
  await stopChild(child);
  await db.stop().catch(() => {});
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
// A closed terminal: the server's group no longer hears it, so this script stops it.
process.on('SIGHUP', () => void shutdown(0));
child.on('exit', (code) => void shutdown(code ?? 0));
