import { LEASE_MS } from '@/lib/agent/agent';
import { recoverAbandonedRuns } from '@/lib/agent/recovery';
import { prisma } from './db';
import { PrismaAgentStore } from './prisma-store';

const globalForSweeps = globalThis as unknown as { countersignSweeps?: ReturnType<typeof setInterval> };

/** Runs the crash-recovery sweep (and drops expired rate-limit and idempotency rows) now and every LEASE_MS / 2. */
export function startRecoverySweeps() {
  if (globalForSweeps.countersignSweeps) return;
  const store = new PrismaAgentStore(prisma());
  const sweep = () =>
    Promise.all([
      // Old rate-limit windows and idempotency records (kept a day, for retries) are not needed.
      prisma().$executeRaw`DELETE FROM rate_limits WHERE window_start < now() - interval '1 hour'`,
      prisma().$executeRaw`DELETE FROM idempotency_keys WHERE created_at < now() - interval '1 day'`,
    ])
      .then(() => recoverAbandonedRuns({ store }))
      .then((recovered) => {
        for (const run of recovered) console.warn(`[recovery] run ${run.runId} was interrupted`, run.unknownToolCalls);
      })
      .catch((error) => console.error('[recovery] sweep failed:', error));
  void sweep();
  globalForSweeps.countersignSweeps = setInterval(sweep, LEASE_MS / 2);
  globalForSweeps.countersignSweeps.unref();
}
