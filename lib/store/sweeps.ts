import { recoverAbandonedRuns } from '@/lib/agent/recovery';
import type { AgentStore } from '@/lib/agent/store';
import type { PrismaClient } from '@/lib/generated/prisma/client';

/**
 * One pass of the crash-recovery sweep (the `recovery-sweep` job runs it every LEASE_MS / 2): drops
 * expired rate-limit and idempotency rows, then ends runs whose process died (recovery.ts).
 * Safe to run from several workers at once.
 *
 * @returns the runs recovered
 */
export async function sweepOnce(input: { db: PrismaClient; store: AgentStore }) {
  await Promise.all([
    // Old rate-limit windows and idempotency records (kept a day, for retries) are not needed.
    input.db.$executeRaw`DELETE FROM rate_limits WHERE window_start < now() - interval '1 hour'`,
    input.db.$executeRaw`DELETE FROM idempotency_keys WHERE created_at < now() - interval '1 day'`,
  ]);
  const recovered = await recoverAbandonedRuns({ store: input.store });
  for (const run of recovered) console.warn(`[recovery] run ${run.runId} was interrupted`, run.unknownToolCalls);
  return recovered;
}
