import { LEASE_MS } from '@/lib/agent/agent';
import { recoverAbandonedRuns } from '@/lib/agent/recovery';
import { prisma } from './db';
import { PrismaAgentStore } from './prisma-store';

const globalForSweeps = globalThis as unknown as { countersignSweeps?: ReturnType<typeof setInterval> };

/** Runs the crash-recovery sweep now and every LEASE_MS / 2 (once per process). */
export function startRecoverySweeps() {
  if (globalForSweeps.countersignSweeps) return;
  const store = new PrismaAgentStore(prisma());
  const sweep = () =>
    recoverAbandonedRuns({ store })
      .then((recovered) => {
        for (const run of recovered) console.warn(`[recovery] run ${run.runId} was interrupted`, run.unknownToolCalls);
      })
      .catch((error) => console.error('[recovery] sweep failed:', error));
  void sweep();
  globalForSweeps.countersignSweeps = setInterval(sweep, LEASE_MS / 2);
  globalForSweeps.countersignSweeps.unref();
}
