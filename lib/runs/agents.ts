import 'server-only';
import { registerDemoAgents } from '@/lib/demo/agents';
import { AgentRegistry, type ChatAgentEntry } from './registry';
import type { Agent } from '@/lib/agent/agent';
import type { Tool } from '@/lib/agent/tool';

/**
 * The app's agent registry, filled once per process by the agent definitions the app ships (the
 * demo agents, lib/demo) on first use. Every route and lib/chat find agents here.
 */

let registry: AgentRegistry | undefined;
let defaultId: string | undefined;

function appRegistry(): AgentRegistry {
  if (!registry) {
    const built = new AgentRegistry();
    defaultId = registerDemoAgents(built).defaultAgentId;
    registry = built;
  }
  return registry;
}

/**
 * The app's agent with this id.
 * @throws AgentError UNKNOWN_AGENT (404)
 */
export function getAgent(agentId: string): Agent {
  return appRegistry().get(agentId);
}

/** Every agent of the app (top-level and delegated). */
export function allAgents(): Agent[] {
  return appRegistry().all();
}

/** The agents offered in the "new chat" picker. */
export function chatAgents(): ChatAgentEntry[] {
  return appRegistry().chatAgents();
}

/** The agent a new chat talks to when it names none. */
export function defaultAgentId(): string {
  appRegistry();
  return defaultId!;
}

/** A tool of the app's agents by its name (see AgentRegistry.findTool). */
export function findTool(toolName: string): Tool | undefined {
  return appRegistry().findTool(toolName);
}
