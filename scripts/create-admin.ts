// `npm run admin:create -- --email you@example.com --name "Your Name"`: the first admin of a
// database `npm start` left without accounts (lib/admin/first-admin.ts). Prints a temporary password once.
import { parseArgs } from 'node:util';
import { createAdminAccount } from '../lib/admin/first-admin';
import { migrate } from '../lib/db/migrate';
import { ApiError } from '../lib/http/errors';
import { createPrismaClient } from '../lib/store/db';
import { openDatabaseOrExit } from './database';

const USAGE = `Usage: npm run admin:create -- --email you@example.com --name "Your Name"

Creates an admin account in the app's database (DATABASE_URL, else the embedded PostgreSQL under
.data/pg) and prints its temporary password once. Exit codes: 0 created, 1 refused (EMAIL_TAKEN:
the email is taken; BAD_REQUEST: the email or name is not valid), 2 a missing or unknown option.`;

let values: { email?: string; name?: string; help?: boolean };
try {
  ({ values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.email || !values.name) {
  console.error(USAGE);
  process.exit(2);
}

const db = await openDatabaseOrExit(undefined, { attach: true });
let code = 0;
try {
  await migrate(db.url);
  const client = createPrismaClient(db.url, { maxConnections: 1 });
  try {
    const account = await createAdminAccount({ email: values.email, name: values.name }, client);
    console.log(`Created admin ${account.email}. Temporary password (shown once): ${account.temporaryPassword}`);
    console.log('Sign in with it (you are asked to choose your own first), then add the other accounts at /admin/users.');
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.error(`${error.code}: ${error.message}`);
    code = 1;
  } finally {
    await client.$disconnect();
  }
} finally {
  await db.stop();
}
process.exit(code);
