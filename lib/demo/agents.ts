import 'server-only';
import { Agent } from '@/lib/agent/agent';
import { env } from '@/lib/env';
import { resolveModel } from '@/lib/models';
import { appPolicySource } from '@/lib/policies/app-source';
import { afterPause } from '@/lib/notify/reviewers';
import type { AgentRegistry } from '@/lib/runs/registry';
import { prisma } from '@/lib/store/db';
import { notifications } from '@/lib/store/listen';
import { PrismaAgentStore } from '@/lib/store/prisma-store';
import { createDataTools, createOpsTools } from './tools';

/**
 * The demo agents (ops agent, supervisor, data agent), registered into the app's agent registry
 * (lib/runs/agents.ts). They hold no per-run state.
 * @returns the id of the agent a new chat uses by default
 */
export function registerDemoAgents(registry: AgentRegistry): { defaultAgentId: string } {
  const db = prisma();
  // Reviewers hear about calls only they may decide: mailed right after the pause is saved, and
  // by the job the pause's own insert queued when that did not happen (lib/notify/reviewer-jobs.ts).
  // A Stop pressed on any server reaches the segment running the turn here by NOTIFY.
  const store = new PrismaAgentStore(db, { afterSuspend: afterPause, notifications: notifications() });
  // The approval policies admins keep as data (/admin/policies), for every demo agent.
  const dataPolicy = appPolicySource();
  // A provider that sends nothing for this long fails the step (lib/agent/idle.ts).
  const modelIdleTimeoutMs = env().MODEL_IDLE_TIMEOUT_MS;
  const opsAgent = new Agent({
    id: 'ops-agent',
    name: 'Ops agent',
    instructions:
      'You help an operations team. Use the tools to look up customers, delete records, refund orders, send emails and check the weather. After a tool result, tell the user plainly what happened, quoting any reason given for a declined action.',
    model: resolveModel(),
    tools: createOpsTools(db),
    store,
    dataPolicy,
    modelIdleTimeoutMs,
  });
  const dataAgent = new Agent({
    id: 'data-agent',
    name: 'Data agent',
    instructions: 'You look up users with find-user and answer with what you found.',
    model: resolveModel(),
    tools: createDataTools(db),
    store,
    dataPolicy,
    modelIdleTimeoutMs,
  });
  const supervisor = new Agent({
    id: 'supervisor',
    name: 'Supervisor',
    instructions: 'You delegate user look-ups to the data agent (agent-data-agent) and report its answer.',
    model: resolveModel(),
    tools: [],
    agents: { 'data-agent': dataAgent },
    store,
    dataPolicy,
    modelIdleTimeoutMs,
  });
  // Top-level agents a chat or an API client can address; data-agent also runs under the supervisor.
  registry
    .register(opsAgent, { chat: { description: 'Records, refunds, emails, weather' } })
    .register(supervisor, { chat: { description: 'Delegates user look-ups to the data agent' } })
    .register(dataAgent);
  return { defaultAgentId: opsAgent.id };
}
