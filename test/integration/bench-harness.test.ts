import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createCountersignSystem } from '../../bench/countersign';
import { latencyLoop, throughput } from '../../bench/measure';
import { databaseUrl } from '../support/harness';

// `npm run bench` drives the runtime through its public API only; this keeps that harness working
// while the runtime changes (the peer framework is not installed here, so only Countersign runs).
const system = createCountersignSystem(databaseUrl(), { poolSize: 4 });
afterAll(() => system.close());

describe('bench harness on the Countersign runtime', () => {
  it('times a stream to its approval and an approval to the end on either instance, counting statements', async () => {
    for (const decider of [system.client(0), system.secondary!]) {
      const samples = await latencyLoop(system, { count: 2, warmup: 0, decider, label: 'harness' });
      expect(samples.toApproval).toHaveLength(2);
      for (let i = 0; i < 2; i++) {
        expect(samples.toApproval[i]).toBeGreaterThan(0);
        expect(samples.toPaused[i]).toBeGreaterThanOrEqual(samples.toApproval[i]);
        expect(samples.toFinished[i]).toBeGreaterThanOrEqual(samples.toToolResult[i]);
        // A paused run is in PostgreSQL before its approval is published; the tool runs after a claim.
        expect(samples.sqlBeforeApproval[i]).toBeGreaterThan(0);
        expect(samples.sqlPerStream[i]).toBeGreaterThanOrEqual(samples.sqlBeforeApproval[i]);
        expect(samples.sqlBeforeTool[i]).toBeGreaterThan(0);
        expect(samples.sqlPerApproval[i]).toBeGreaterThan(samples.sqlBeforeTool[i]);
      }
    }
  });

  it('counts every statement sent through a pg client and settles once the database is quiet', async () => {
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    const before = system.sql!.count;
    await client.query('SELECT 1');
    await client.query('SELECT 2');
    expect(system.sql!.count - before).toBe(2);
    expect(await system.sql!.settle({ quietMs: 5 })).toBe(before + 2);
    await client.end();
  });

  it('decides runs with concurrent clients and finds each approved tool ran exactly once', async () => {
    const result = await throughput(system, { clients: 4, runs: 8, label: 'harness' });
    expect(result).toMatchObject({ runs: 8, duplicates: 0, missing: 0, errors: 0 });
    expect(result.decisionsPerSecond).toBeGreaterThan(0);
  });
});
