import 'server-only';
import { prisma } from '@/lib/store/db';
import { notifications } from '@/lib/store/listen';

/**
 * Subscribes to what changes a thread elsewhere (a reviewer decided, a run continued on another
 * server), from PostgreSQL NOTIFY so it works across servers: run status and pending-call changes
 * whose payload names the thread, and new events of the thread's runs (those known when it
 * subscribed and those a later notification names).
 * @param threadId the thread (its owner was checked by the caller)
 * @param notify called on each change (the caller debounces)
 * @returns the unsubscribe functions
 */
export async function subscribeThreadActivity(threadId: string, notify: () => void): Promise<(() => void)[]> {
  const runIds = new Set<string>();
  const ofThread = (payload: string) => {
    try {
      const parsed = JSON.parse(payload) as { threadId?: string; runId?: string; rootRunId?: string };
      if (parsed.threadId !== threadId) return;
      for (const runId of [parsed.runId, parsed.rootRunId]) if (runId) runIds.add(runId);
      notify();
    } catch {
      // Not ours to parse; ignore.
    }
  };
  const unsubscribers = [
    await notifications().subscribe('countersign_runs', ofThread),
    await notifications().subscribe('countersign_pending', ofThread),
    await notifications().subscribe('countersign_run_events', (runId) => {
      if (runIds.has(runId)) notify();
    }),
  ];
  for (const run of await prisma().run.findMany({ where: { threadId }, select: { id: true } })) runIds.add(run.id);
  return unsubscribers;
}
