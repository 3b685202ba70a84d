/**
 * Counts SQL statements (round-trips) a runtime sends, by wrapping `Client.prototype.query` of the
 * `pg` module its pool uses. Every statement goes through it: `Pool.query` checks a client out and
 * calls `client.query`, and so do Prisma's pg adapter and Mastra's PostgresStore (BEGIN and COMMIT
 * count too). Countersign and the peer load separate copies of `pg`, so each gets its own counter
 * even while both run in one process.
 */
export interface SqlCounter {
  /** Statements sent since the counter was installed. */
  readonly count: number;
  /** Resolves once no statement was sent for `quietMs` (or after `maxMs`), with the count then. */
  settle(options?: { quietMs?: number; maxMs?: number }): Promise<number>;
}

type PgModule = { Client: { prototype: { query: (...args: unknown[]) => unknown } } };

const installed = new WeakMap<object, SqlCounter>();

/**
 * Installs (once per `pg` module) the statement counter on `pg.Client.prototype.query`.
 * @param pgModule the `pg` module object a pool was created from (default export)
 * @returns the counter for that module
 */
export function countStatements(pgModule: PgModule): SqlCounter {
  const proto = pgModule.Client.prototype;
  const existing = installed.get(proto);
  if (existing) return existing;
  let count = 0;
  let lastAt = performance.now();
  const original = proto.query;
  proto.query = function countedQuery(this: unknown, ...args: unknown[]) {
    count += 1;
    lastAt = performance.now();
    return original.apply(this, args);
  };
  const counter: SqlCounter = {
    get count() {
      return count;
    },
    async settle({ quietMs = 60, maxMs = 2_000 } = {}) {
      const deadline = performance.now() + maxMs;
      for (;;) {
        const quietFor = performance.now() - lastAt;
        if (quietFor >= quietMs || performance.now() >= deadline) return count;
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, quietMs - quietFor)));
      }
    },
  };
  installed.set(proto, counter);
  return counter;
}
