// `npm run dev` / `npm start`: database up, migrated and seeded, then Next.js with DATABASE_URL set.
// When a step after the database started fails, the database is stopped before exiting (start-up.ts).
import { spawn } from 'node:child_process';
import { migrate } from '../lib/db/migrate';
import { seedFreshDatabase } from '../lib/demo/seed';
import { developmentDefaults, envOrExit } from '../lib/env';
import { openDatabaseOrExit } from './database';
import { startWithDatabase } from './start-up';

const mode = process.argv[2] === 'start' ? 'start' : 'dev';
// A bad variable stops here, before a database is started (Next checks again in instrumentation.ts).
envOrExit();
// The demo accounts' password is public, so `npm start` creates them only when asked to.
const accounts = mode === 'dev' || envOrExit().COUNTERSIGN_DEMO_ACCOUNTS;
const db = await openDatabaseOrExit();

await startWithDatabase(db, {
  steps: [
    { name: 'migrating the database', run: async (url) => void (await migrate(url)) },
    {
      name: 'seeding the demo data',
      run: async (url) => {
        const fresh = await seedFreshDatabase(url, { accounts });
        if (fresh.seeded !== null) console.log(`Seeded ${fresh.seeded} demo rows${accounts ? ' and accounts' : ' (no accounts)'}.`);
        if (!fresh.hasAccounts) {
          console.log('No accounts yet. Create the first admin: npm run admin:create -- --email you@example.com --name "Your Name"');
        }
      },
    },
  ],
  // A process group of its own (detached), so stopping it stops the server `next dev` starts in a
  // process of its own too; a Ctrl+C reaches this script, which stops the group (stop-child.ts).
  spawnServer: (url) =>
    spawn(process.execPath, ['node_modules/next/dist/bin/next', mode, ...process.argv.slice(3)], {
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
      env: { ...process.env, ...(mode === 'dev' ? developmentDefaults() : {}), DATABASE_URL: url },
    }),
  onStopSignal: (stop) => {
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // A closed terminal: the server's group no longer hears it, so this script stops it.
    process.on('SIGHUP', stop);
  },
  exit: (code) => process.exit(code),
});
