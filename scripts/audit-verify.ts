// `npm run audit:verify`: recomputes the audit hash chain (decisions and audit events) of the
// database (DATABASE_URL, else the embedded development one) and names the first broken link.
// Exit code 0 when the chain holds, 1 when it does not.
import { verifyAuditChain } from '../lib/audit/verify';
import { createPrismaClient } from '../lib/store/db';
import { openDatabase } from './database';

const database = await openDatabase();
const db = createPrismaClient(database.url, { maxConnections: 2 });
try {
  const report = await verifyAuditChain(db);
  if (report.ok) {
    console.log(`Audit chain holds: ${report.checked} links, head ${report.head.seq} ${report.head.hash}.`);
    if (report.unchained > 0) console.log(`${report.unchained} entries are older than the chain and not covered by it.`);
  } else {
    const broken = report.firstBroken!;
    console.error(`Audit chain BROKEN at link ${broken.seq} (${broken.table} ${broken.id}): ${broken.problem}. ${broken.message}`);
    console.error(`${report.checked} links before it hold.`);
  }
  process.exitCode = report.ok ? 0 : 1;
} finally {
  await db.$disconnect();
  await database.stop();
}
