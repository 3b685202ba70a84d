import 'server-only';
import { Agent } from '@/lib/agent/agent';
import { AgentError } from '@/lib/agent/errors';
import { resolveModel } from '@/lib/models';
import { prisma } from '@/lib/store/db';
import { PrismaAgentStore } from '@/lib/store/prisma-store';
import { createDataTools, createOpsTools } from './tools';

export const DEFAULT_AGENT_ID = 'ops-agent';

/** The agents people can chat with, for the "new chat" picker. */
export const CHAT_AGENTS: { id: string; name: string; description: string }[] = [
  { id: 'ops-agent', name: 'Ops agent', description: 'Records, refunds, emails, weather' },
  { id: 'supervisor', name: 'Supervisor', description: 'Delegates user look-ups to the data agent' },
];

let agents: Map<string, Agent> | undefined;

function build(): Map<string, Agent> {
  const db = prisma();
  const store = new PrismaAgentStore(db);
  const opsAgent = new Agent({
    id: 'ops-agent',
    name: 'Ops agent',
    instructions:
      'You help an operations team. Use the tools to look up customers, delete records, refund orders, send emails and check the weather. After a tool result, tell the user plainly what happened, quoting any reason given for a declined action.',
    model: resolveModel(),
    tools: createOpsTools(db),
    store,
  });
  const dataAgent = new Agent({
    id: 'data-agent',
    name: 'Data agent',
    instructions: 'You look up users with find-user and answer with what you found.',
    model: resolveModel(),
    tools: createDataTools(db),
    store,
  });
  const supervisor = new Agent({
    id: 'supervisor',
    name: 'Supervisor',
    instructions: 'You delegate user look-ups to the data agent (agent-data-agent) and report its answer.',
    model: resolveModel(),
    tools: [],
    agents: { 'data-agent': dataAgent },
    store,
  });
  // Top-level agents a chat or an API client can address; data-agent also runs under the supervisor.
  return new Map([opsAgent, supervisor, dataAgent].map((agent) => [agent.id, agent]));
}

/**
 * The app's agents by id (built once per process; they hold no per-run state).
 * @throws AgentError UNKNOWN_AGENT
 */
export function getAgent(agentId: string): Agent {
  agents ??= build();
  const agent = agents.get(agentId);
  if (!agent) throw new AgentError('UNKNOWN_AGENT', `No agent ${agentId}.`);
  return agent;
}
