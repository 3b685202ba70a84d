import pg from 'pg';

/**
 * A pg pool that records every statement sent through it (one entry per `query` call of any of
 * its clients: Prisma's single statements, and BEGIN/COMMIT when something opens a transaction).
 * Pass it to `createPrismaClient(url, { pool: (config) => countingPool(config, log) })`. `named[i]`
 * says whether statement `i` was sent as a named prepared statement (lib/store/hot.ts).
 */
export function countingPool(config: pg.PoolConfig, log: string[], named: boolean[] = []): pg.Pool {
  class CountingClient extends pg.Client {}
  const query = pg.Client.prototype.query;
  CountingClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string; name?: string };
    log.push(typeof first === 'string' ? first : first.text);
    named.push(typeof first !== 'string' && Boolean(first.name));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return new pg.Pool({ ...config, Client: CountingClient as unknown as new () => pg.ClientBase });
}
