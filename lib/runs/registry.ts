import type { Agent } from '@/lib/agent/agent';
import { AgentError } from '@/lib/agent/errors';
import type { Tool } from '@/lib/agent/tool';

/** How an agent is offered in the "new chat" picker. */
export interface ChatAgentEntry {
  id: string;
  name: string;
  description: string;
}

/**
 * The app's agents by id: what chat, the runs routes and the agents API address. Agents are
 * registered once per process (they hold no per-run state); a registration may offer the agent in
 * the chat picker.
 */
export class AgentRegistry {
  private readonly agents = new Map<string, Agent>();
  private readonly chat: ChatAgentEntry[] = [];
  /** The registered agents' tools by name, built on first use (see findTool). */
  private tools: Map<string, Tool> | undefined;

  /**
   * Adds an agent (a top-level agent a chat or an API client can address).
   * @param options.chat offers it in the "new chat" picker with this description
   * @throws Error when an agent with the same id is registered already
   */
  register(agent: Agent, options: { chat?: { description: string } } = {}): this {
    if (this.agents.has(agent.id)) throw new Error(`Agent ${agent.id} is registered twice.`);
    this.agents.set(agent.id, agent);
    this.tools = undefined;
    if (options.chat) this.chat.push({ id: agent.id, name: agent.name, description: options.chat.description });
    return this;
  }

  /**
   * The agent with this id.
   * @throws AgentError UNKNOWN_AGENT (404)
   */
  get(agentId: string): Agent {
    const agent = this.agents.get(agentId);
    if (!agent) throw new AgentError('UNKNOWN_AGENT', `No agent ${agentId}.`);
    return agent;
  }

  /**
   * A tool of the registered agents by its name, for describing calls outside a run.
   * @throws Error when two different tools of the registered agents share a name (names must be unique)
   */
  findTool(toolName: string): Tool | undefined {
    if (!this.tools) {
      const tools = new Map<string, Tool>();
      for (const agent of this.agents.values()) {
        for (const tool of agent.tools.values()) {
          // Delegation tools (`agent-<key>`) stand for sub-agents, whose own tools are registered with them.
          if (tool.id.startsWith('agent-')) continue;
          const known = tools.get(tool.id);
          if (known && known !== tool) throw new Error(`Two tools are named ${tool.id}; tool names must be unique across the app's agents.`);
          tools.set(tool.id, tool);
        }
      }
      this.tools = tools;
    }
    return this.tools.get(toolName);
  }

  /** Every registered agent, in registration order (e.g. for the tool names filters offer). */
  all(): Agent[] {
    return [...this.agents.values()];
  }

  /** The agents offered in the chat picker, in registration order. */
  chatAgents(): ChatAgentEntry[] {
    return [...this.chat];
  }
}
