// `npm run db:migrate`: applies prisma/migrations offline.
import { migrate } from '../lib/db/migrate';
import { openDatabaseOrExit } from './database';

const db = await openDatabaseOrExit(undefined, { attach: true });
try {
  const applied = await migrate(db.url);
  console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
} finally {
  await db.stop();
}
