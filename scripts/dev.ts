// `npm run dev` / `npm start`: database up, migrated and seeded, then Next.js with DATABASE_URL set.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { migrate } from '../lib/db/migrate';
import { seed } from '../lib/demo/seed';
import { envOrExit } from '../lib/env';
import { openDatabase } from './database';
import { stopChild } from './stop-child';

const mode = process.argv[2] === 'start' ? 'start' : 'dev';
// A bad variable stops here, before a database is started (Next checks again in instrumentation.ts).
envOrExit();
const db = await openDatabase();
await migrate(db.url);
// Only a fresh database is seeded by itself, so records deleted through approvals stay deleted
// across restarts; `npm run db:seed` restores the demo rows on purpose.
if (await isEmpty(db.url)) console.log(`Seeded ${await seed(db.url)} demo rows and accounts.`);

async function isEmpty(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM users LIMIT 1')).rowCount === 0;
  } finally {
    await client.end();
  }
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
