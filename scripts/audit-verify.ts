// `npm run audit:verify`: recomputes the audit hash chain (decisions and audit events) of the
// database (DATABASE_URL, else the embedded development one, also while `npm run dev` runs it) and
// names the first broken link.
// `npm run audit:verify -- --file <export.jsonl|export.csv>` checks a downloaded export offline
// instead (no database): every entry's hashes, the links between consecutive entries, the link
// numbers, and the header and end line that show the file is whole; in a CSV also that each readable
// column the hash covers shows what the hashed entry holds. What the file shows outside any hash (a
// CSV's agentId, requester and why, and a sub-agent's top-level run) is named in the report.
// Exit code 0 when the chain (or the export) holds, 1 when it does not, 2 when it could not be
// checked (a bad command line, a file that cannot be read, a database that cannot be reached).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const USAGE = 'Usage: npm run audit:verify [-- --file <export.jsonl|export.csv>] [--json]';

let values: { file?: string; json?: boolean };
try {
  ({ values } = parseArgs({ options: { file: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true }));
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}

if (values.file === '') {
  console.error(`--file needs a file name.\n${USAGE}`);
  process.exit(2);
}

if (values.file !== undefined) {
  const { describeExportReport } = await import('../lib/audit/export-check');
  const { verifyExport } = await import('../lib/audit/export-verify');
  const text = await readFile(values.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    console.error(`Cannot read ${values.file}: ${error.code ?? error.message}`);
    process.exit(2);
  });
  const report = verifyExport(text);
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else for (const line of describeExportReport(report)) (report.ok ? console.log : console.error)(line);
  process.exitCode = report.ok ? 0 : 1;
} else {
  const { verifyAuditChain } = await import('../lib/audit/verify');
  const { createPrismaClient } = await import('../lib/store/db');
  const { openDatabase } = await import('./database');
  const database = await openDatabase(undefined, { attach: true }).catch((error: Error) => {
    console.error(`Cannot open the database: ${error.message}`);
    process.exit(2);
  });
  const db = createPrismaClient(database.url, { maxConnections: 2 });
  try {
    const report = await verifyAuditChain(db);
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else if (report.ok) {
      console.log(`Audit chain holds: ${report.checked} links, head ${report.head.seq} ${report.head.hash}.`);
      if (report.unchained > 0) console.log(`${report.unchained} entries are older than the chain and not covered by it.`);
    } else {
      const broken = report.firstBroken!;
      console.error(`Audit chain BROKEN at link ${broken.seq} (${broken.table} ${broken.id}): ${broken.problem}. ${broken.message}`);
      console.error(`${report.checked} links before it hold.`);
    }
    process.exitCode = report.ok ? 0 : 1;
  } catch (error) {
    console.error(`Cannot check the database's chain: ${(error as Error).message}`);
    process.exitCode = 2;
  } finally {
    await db.$disconnect();
    await database.stop();
  }
}
