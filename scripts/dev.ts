// `npm run dev` / `npm start`: database up, migrated and seeded, then Next.js with DATABASE_URL set.
import { spawn } from 'node:child_process';
import { migrate } from '../lib/db/migrate';
import { seed } from '../lib/demo/seed';
import { openDatabase } from './database';

const mode = process.argv[2] === 'start' ? 'start' : 'dev';
const db = await openDatabase();
await migrate(db.url);
const seeded = await seed(db.url);
if (seeded > 0) console.log(`Seeded ${seeded} demo rows.`);

const nextArgs = [mode, ...process.argv.slice(3)];
const child = spawn(process.execPath, ['node_modules/next/dist/bin/next', ...nextArgs], {
  stdio: 'inherit',
  env: { ...process.env, DATABASE_URL: db.url },
});

let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  await db.stop().catch(() => {});
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
child.on('exit', (code) => void shutdown(code ?? 0));
