import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';

/**
 * The hot path's statements: the few raw CTEs a run, a pause, a decision and a finish are made of
 * (lib/store/prisma-store.ts), and the per-request access check. They go straight to the client's
 * pg pool as named prepared statements, for two costs `npm run bench` measured:
 *
 * - **Planning.** `@prisma/adapter-pg` sends every statement unnamed, so PostgreSQL parses and plans
 *   it on every call: about 2.5 ms for the decision statement and 1 ms for a run's start, more than
 *   running them. A named statement is parsed once per connection; after five executions
 *   PostgreSQL keeps a generic plan when that plan costs no more than the custom ones.
 * - **Prisma's client CPU** for a statement whose text and values are already built: about 0.2 ms
 *   of JavaScript per statement, 10 % of the runtime's CPU.
 *
 * Results come as pg reads them: jsonb parsed, timestamptz as Date, int4 as number, text[] as
 * arrays (int8 and numeric as strings; no hot statement returns them). Everything else uses Prisma.
 * A client that was not made by `createPrismaClient` (say, an interactive transaction's) has no
 * registered pool, and the statement goes through `$queryRaw` as before.
 */

/**
 * Each client's pool, and its `$connect()`: the adapter takes charge of the pool when Prisma
 * connects (it listens for idle-client errors, and `$disconnect` ends the pool), and Prisma
 * connects lazily, so a process whose first statements are hot ones connects it first.
 *
 * Kept on the client object under a registered symbol, not in a map of this module: Next bundles
 * the server's code in several parts (the instrumentation hook that starts the job worker at
 * start-up, the routes), so one server process can hold several copies of this module, while the
 * process-wide client (`prisma()`) is made by whichever copy uses it first. A map here was seen
 * only by that copy; the routes' copy found no pool, and every hot statement of the chat and
 * decision routes went through `$queryRaw`, unnamed and planned anew on each call (found with
 * pg_stat_statements under `npm run bench`, over HTTP).
 */
const HOT_POOL = Symbol.for('countersign.hotPool');
type Registered = { pool: pg.Pool; connected?: Promise<void> };
type WithPool = { [HOT_POOL]?: Registered };

/** Called by `createPrismaClient`: statements of `hotQuery(db, …)` run on `pool`. */
export function registerPool(db: PrismaClient, pool: pg.Pool) {
  (db as WithPool)[HOT_POOL] = { pool };
}

/** Statement names by text; the texts are the few the code builds, so the map stays small. */
const names = new Map<string, string>();

/**
 * The prepared statement's name for a statement text: `cs_` and 24 hex digits of its SHA-1, so two
 * texts never share a name (pg refuses a name reused for another text).
 * @param text the statement with `$1…` placeholders
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `cs_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs one hot statement as a named prepared statement on the client's pool.
 * Only for statements whose text comes from code, never from the number of items a user sends
 * (each distinct text stays prepared on every connection until it closes).
 * @param db the Prisma client whose pool to use
 * @param query the statement, built with `Prisma.sql`
 * @returns the rows, as pg reads them (`T` is the array type, as for `$queryRaw<T>`)
 * @throws pg's `DatabaseError` (with PostgreSQL's `code`) when the statement fails; a statement that
 *   fails only because its preparation went stale (see `STALE_STATEMENT`) is run again unprepared
 */
export async function hotQuery<T extends unknown[] = unknown[]>(db: PrismaClient, query: Prisma.Sql): Promise<T> {
  const registered = (db as WithPool)[HOT_POOL];
  // `$disconnect` ends the registered pool; Prisma then reconnects with a pool of its own.
  if (!registered || registered.pool.ended) return db.$queryRaw<T>(query);
  await (registered.connected ??= db.$connect().catch((error: unknown) => {
    // Not cached: the next statement tries again (the database may be back by then).
    registered.connected = undefined;
    throw error;
  }));
  const text = query.text;
  const client = await registered.pool.connect();
  try {
    const result = await client.query({ name: statementName(text), text, values: query.values as unknown[] });
    client.release();
    return result.rows as T;
  } catch (error) {
    if (!STALE_STATEMENT.has((error as { code?: string }).code ?? '')) {
      client.release();
      throw error;
    }
    // pg believes the statement is prepared on this connection, and PostgreSQL no longer has it
    // (a pooler or DISCARD ALL dropped it), or a migration changed a column it returns. The
    // connection is closed, so its memory of prepared statements goes with it, and this statement
    // runs unprepared; the next one prepares again on a fresh connection.
    client.release(error as Error);
    return db.$queryRaw<T>(query);
  }
}

/** PostgreSQL's codes for a prepared statement that no longer matches: 26000 gone, 0A000 result type changed. */
const STALE_STATEMENT = new Set(['26000', '0A000']);
