import { describe, expect, it } from 'vitest';
import type { Agent } from '@/lib/agent/agent';
import { AgentError } from '@/lib/agent/errors';
import type { Tool } from '@/lib/agent/tool';
import { AgentRegistry } from './registry';

/** The registry reads only an agent's id and name. */
const agent = (id: string, name = id) => ({ id, name }) as Agent;

describe('AgentRegistry', () => {
  it('finds registered agents by id and offers only the chat ones in the picker, in order', () => {
    const ops = agent('ops-agent', 'Ops agent');
    const registry = new AgentRegistry()
      .register(ops, { chat: { description: 'Records' } })
      .register(agent('data-agent'))
      .register(agent('supervisor', 'Supervisor'), { chat: { description: 'Delegates' } });
    expect(registry.get('ops-agent')).toBe(ops);
    expect(registry.get('data-agent').id).toBe('data-agent');
    expect(registry.chatAgents()).toEqual([
      { id: 'ops-agent', name: 'Ops agent', description: 'Records' },
      { id: 'supervisor', name: 'Supervisor', description: 'Delegates' },
    ]);
    expect(registry.all().map((each) => each.id)).toEqual(['ops-agent', 'data-agent', 'supervisor']);
  });

  it('an unknown id is UNKNOWN_AGENT (404); an id registered twice is refused', () => {
    const registry = new AgentRegistry().register(agent('ops-agent'));
    let error: unknown;
    try {
      registry.get('nobody');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ code: 'UNKNOWN_AGENT', status: 404 });
    expect(() => registry.register(agent('ops-agent'))).toThrow(/registered twice/);
  });

  it('finds a tool of any registered agent by name, and refuses two different tools with one name', () => {
    const refund = { id: 'issue-refund' } as Tool;
    const withTools = (id: string, tools: Tool[]) => ({ id, name: id, tools: new Map(tools.map((tool) => [tool.id, tool])) }) as unknown as Agent;
    const registry = new AgentRegistry()
      .register(withTools('ops-agent', [refund, { id: 'agent-data-agent' } as Tool]))
      .register(withTools('data-agent', [{ id: 'find-user' } as Tool]));
    expect(registry.findTool('issue-refund')).toBe(refund);
    expect(registry.findTool('find-user')?.id).toBe('find-user');
    expect(registry.findTool('agent-data-agent')).toBeUndefined();
    expect(registry.findTool('nothing')).toBeUndefined();
    const clash = new AgentRegistry().register(withTools('a', [{ id: 'x' } as Tool])).register(withTools('b', [{ id: 'x' } as Tool]));
    expect(() => clash.findTool('x')).toThrow(/must be unique/);
  });
});
