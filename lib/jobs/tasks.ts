import type { Task, TaskList } from 'graphile-worker';
import { LEASE_MS, type Agent } from '@/lib/agent/agent';
import type { AgentStore } from '@/lib/agent/store';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { env } from '@/lib/env';
import { listOverdueDeadlines } from '@/lib/store/deadlines';
import { sweepOnce } from '@/lib/store/sweeps';
import { actOnDeadline } from './deadlines';
import { deliverWebhook, type DeliveryOptions } from '@/lib/webhooks/deliver';
import { JOB_KINDS, notificationHandler, type NotificationJob } from './queue';

/** What the tasks need: the database, the runtime's store and the agent registry. */
export interface TaskDeps {
  db: PrismaClient;
  store: AgentStore;
  /** A top-level agent by id (undefined when unknown). */
  agent: (agentId: string) => Agent | undefined;
  /** How webhooks are sent (default: WEBHOOK_* variables; no tool marked sensitive unless given). */
  webhooks?: Partial<DeliveryOptions>;
}

/** How often the recovery sweep runs, in ms: twice per lease, so a dead process is noticed within 1.5 leases. */
export const SWEEP_EVERY_MS = LEASE_MS / 2;

/** Overdue deadlines the sweep acts on itself: their job is this late (lost, or its worker died). */
const OVERDUE_GRACE_MS = 5_000;

/**
 * The task list of every job kind (see queue.ts).
 * - `recovery-sweep`: crash recovery and clean-up (sweepOnce), deadlines whose job is overdue, then
 *   schedules the next sweep (one queued sweep job; `job_key` replace).
 * - `call-deadline`: declines or escalates one call (actOnDeadline).
 * - `notification`: hands the payload to the channel's registered handler.
 * - `webhook-delivery`: one attempt of one webhook delivery (deliverWebhook); a failed attempt
 *   schedules its own retry, so the job itself only fails (and is retried by the queue) when the
 *   database does.
 */
export function createTasks(deps: TaskDeps): TaskList {
  const recoverySweep: Task = async (_payload, helpers) => {
    try {
      await sweepOnce({ db: deps.db, store: deps.store, agent: deps.agent });
      for (const pendingCallId of await listOverdueDeadlines(deps.db, { graceMs: OVERDUE_GRACE_MS, limit: 100 })) {
        await actOnDeadline({ db: deps.db, agent: deps.agent, pendingCallId }).catch((error) =>
          console.error(`[jobs] overdue deadline of ${pendingCallId} failed:`, error),
        );
      }
    } finally {
      await helpers.addJob(JOB_KINDS.recoverySweep, {}, {
        jobKey: JOB_KINDS.recoverySweep,
        jobKeyMode: 'replace',
        runAt: new Date(Date.now() + SWEEP_EVERY_MS),
      });
    }
  };
  const callDeadline: Task = async (payload) => {
    const { pendingCallId } = payload as { pendingCallId: string };
    await actOnDeadline({ db: deps.db, agent: deps.agent, pendingCallId });
  };
  const notification: Task = async (payload, helpers) => {
    const job = payload as NotificationJob;
    const handler = notificationHandler(job.channel);
    if (!handler) throw new Error(`No notification handler for channel ${job.channel}`);
    await handler(job.payload, { attempt: helpers.job.attempts, maxAttempts: helpers.job.max_attempts, jobId: String(helpers.job.id) });
  };
  const webhookDelivery: Task = async (payload) => {
    const { deliveryId, resend } = payload as { deliveryId: string; resend?: boolean };
    const { WEBHOOK_TIMEOUT_MS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_BASE_MS, WEBHOOK_ALLOW_PRIVATE_NETWORKS } = env();
    await deliverWebhook(deps.db, { deliveryId, resend }, {
      timeoutMs: WEBHOOK_TIMEOUT_MS,
      maxAttempts: WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: WEBHOOK_RETRY_BASE_MS,
      allowPrivateNetworks: WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      sensitivity: () => undefined,
      ...deps.webhooks,
    });
  };
  return {
    [JOB_KINDS.recoverySweep]: recoverySweep,
    [JOB_KINDS.callDeadline]: callDeadline,
    [JOB_KINDS.notification]: notification,
    [JOB_KINDS.webhookDelivery]: webhookDelivery,
  };
}

/** The app's tasks: its Prisma client, store and agent registry (server code; loads the agents). */
export async function appTasks(): Promise<TaskList> {
  const [{ prisma }, { PrismaAgentStore }, { getAgent, findTool }, { AgentError }] = await Promise.all([
    import('@/lib/store/db'),
    import('@/lib/store/prisma-store'),
    import('@/lib/runs/agents'),
    import('@/lib/agent/errors'),
    import('./notification-handlers'),
  ]);
  const agent = (agentId: string) => {
    try {
      return getAgent(agentId);
    } catch (error) {
      if (error instanceof AgentError && error.code === 'UNKNOWN_AGENT') return undefined;
      throw error;
    }
  };
  return createTasks({
    db: prisma(),
    store: new PrismaAgentStore(prisma()),
    agent,
    webhooks: { sensitivity: (toolName) => findTool(toolName)?.sensitive },
  });
}
