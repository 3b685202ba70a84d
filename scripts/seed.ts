// `npm run db:seed`: loads the demo data (idempotent).
import { migrate } from '../lib/db/migrate';
import { seed } from '../lib/demo/seed';
import { openDatabaseOrExit } from './database';

const db = await openDatabaseOrExit(undefined, { attach: true });
try {
  await migrate(db.url);
  console.log(`Seeded ${await seed(db.url)} rows.`);
} finally {
  await db.stop();
}
