import type { Agent } from '@/lib/agent/agent';
import { recoverAbandonedRuns } from '@/lib/agent/recovery';
import type { AgentStore } from '@/lib/agent/store';
import type { PrismaClient } from '@/lib/generated/prisma/client';

/**
 * One pass of the crash-recovery sweep (the `recovery-sweep` job runs it every LEASE_MS / 2): drops
 * expired rate-limit and idempotency rows, then recovers runs whose process died (recovery.ts):
 * one that died in a model step continues here through its agent (`agent`, by id; the run goes on
 * in the background of this process), any other is ended. Safe to run from several workers at once.
 *
 * @returns the runs recovered
 */
export async function sweepOnce(input: { db: PrismaClient; store: AgentStore; agent?: (agentId: string) => Agent | undefined }) {
  await Promise.all([
    // Old rate-limit windows and idempotency records (kept a day, for retries) are not needed.
    input.db.$executeRaw`DELETE FROM rate_limits WHERE window_start < now() - interval '1 hour'`,
    input.db.$executeRaw`DELETE FROM idempotency_keys WHERE created_at < now() - interval '1 day'`,
  ]);
  const lookup = input.agent;
  const takeOver = lookup
    ? async ({ runId, agentId }: { runId: string; agentId: string }) => {
        const continued = await lookup(agentId)?.takeOverRun(runId);
        // The run goes on in the background; its failures end in its own segment.
        continued?.text.catch(() => {});
        return Boolean(continued);
      }
    : undefined;
  const recovered = await recoverAbandonedRuns({ store: input.store, takeOver });
  for (const run of recovered) {
    if (run.continued) console.warn(`[recovery] run ${run.runId} lost its process in a model step; continuing it here`);
    else console.warn(`[recovery] run ${run.runId} was interrupted`, run.unknownToolCalls);
  }
  return recovered;
}
