import 'server-only';
import { allAgents } from '@/lib/runs/agents';

/** What the inbox and audit filters offer to pick from: agent ids and tool names, sorted. */
export interface FilterOptions {
  agents: string[];
  tools: string[];
}

/**
 * The agent ids and tool names the app has, taken from the agents themselves, so a new tool shows
 * up without a code change here.
 */
export function filterOptions(): FilterOptions {
  const agents = allAgents();
  return {
    agents: agents.map((agent) => agent.id).sort(),
    tools: [...new Set(agents.flatMap((agent) => [...agent.tools.keys()]))].sort(),
  };
}
