import { afterAll, describe, expect, it, vi } from 'vitest';
import { Prisma } from '../../lib/generated/prisma/client';
import { createPrismaClient } from '../../lib/store/db';
import { hotQuery } from '../../lib/store/hot';
import { countingPool } from '../support/counting-pool';
import { databaseUrl } from '../support/harness';

/*
 * hotQuery (lib/store/hot.ts) against a real PostgreSQL: statements are prepared once per
 * connection, survive the two ways a prepared statement goes stale, and keep working after the
 * client was disconnected and used again.
 */

const log: string[] = [];
const named: boolean[] = [];
// One connection, so every statement below meets what the previous ones left on it.
const db = createPrismaClient(databaseUrl(), { maxConnections: 1, pool: (config) => countingPool(config, log, named) });
afterAll(() => db.$disconnect());

const select = (n: number) => hotQuery<{ n: number; at: Date }[]>(db, Prisma.sql`SELECT ${n}::int AS n, now() AS at`);

describe('hotQuery', () => {
  it('sends a named statement and returns rows as pg reads them', async () => {
    const start = log.length;
    const [row] = await select(7);
    expect(row.n).toBe(7);
    expect(row.at).toBeInstanceOf(Date);
    expect(named.slice(start)).toEqual([true]);
  });

  it('runs a statement again, unprepared, when PostgreSQL dropped its preparation (a pooler, DISCARD ALL); the next one prepares anew', async () => {
    await select(1);
    // pg still believes the statement is prepared on this connection.
    await db.$executeRawUnsafe('DEALLOCATE ALL');
    const retried = log.length;
    const [again] = await select(2);
    expect(again.n).toBe(2);
    // The prepared call failed (26000), then the same statement ran unprepared.
    expect(named.slice(retried)).toEqual([true, false]);
    const start = log.length;
    const [next] = await select(3);
    expect(next.n).toBe(3);
    expect(named.slice(start)).toEqual([true]);
  });

  it('uses the pool of a client made by another copy of this module (each of Next’s server bundles can hold one)', async () => {
    // A route's own copy of hot.ts: it did not register the process-wide client's pool.
    vi.resetModules();
    const copy = await import('../../lib/store/hot');
    expect(copy.hotQuery).not.toBe(hotQuery);
    const start = log.length;
    const [row] = await copy.hotQuery<{ n: number }[]>(db, Prisma.sql`SELECT ${8}::int AS n`);
    expect(row.n).toBe(8);
    // Named, on the registered pool: not `$queryRaw`, which the counting pool would see unnamed.
    expect(named.slice(start)).toEqual([true]);
  });

  it('keeps working after the client was disconnected and then used again', async () => {
    await select(4);
    await db.$disconnect();
    const [row] = await select(5);
    expect(row.n).toBe(5);
    expect(await db.$queryRaw<{ n: number }[]>`SELECT 6::int AS n`).toEqual([{ n: 6 }]);
  });
});
