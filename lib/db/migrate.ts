import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Logger, runMigrations } from 'graphile-worker';
import pg from 'pg';

/** Same lock id as `prisma migrate`, so our runner and Prisma's never migrate at the same time. */
const PRISMA_ADVISORY_LOCK = 72707369;

/**
 * Applies the SQL migrations in `prisma/migrations/<name>/migration.sql` that are not applied yet,
 * in name order, each in its own transaction. Works offline (no Prisma schema engine) and keeps
 * Prisma's `_prisma_migrations` bookkeeping (sha256 checksum of the file), so `prisma migrate
 * deploy` and `prisma migrate status` agree with it.
 *
 * Then installs or upgrades the job queue's schema (`graphile_worker`, graphile-worker's own
 * migrations), so jobs can be added — and the deadline trigger schedule them — before a worker starts.
 *
 * @param databaseUrl PostgreSQL URL
 * @param migrationsDir folder holding the migration folders (default `prisma/migrations`)
 * @returns names of the migrations applied by this call
 * @throws when a migration fails (that migration is rolled back) or an applied file was edited
 */
export async function migrate(databaseUrl: string, migrationsDir = path.resolve('prisma/migrations')): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const names = fs
      .readdirSync(migrationsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const appliedNow: string[] = [];
    for (const name of names) {
      const sql = fs.readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      const checksum = crypto.createHash('sha256').update(sql).digest('hex');
      const known = applied.get(name);
      if (known) {
        if (known !== checksum) throw new Error(`Migration ${name} was edited after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [crypto.randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${name} failed: ${(error as Error).message}`);
      }
      appliedNow.push(name);
    }
    await migrateJobQueue(databaseUrl);
    return appliedNow;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]).catch(() => {});
    await client.end();
  }
}

/** graphile-worker's schema migrations, quietly (errors still throw). */
async function migrateJobQueue(databaseUrl: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await runMigrations({ pgPool: pool, logger: new Logger(() => () => {}) });
  } finally {
    await pool.end();
  }
}
