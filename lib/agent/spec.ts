import type { DataPolicySource } from './data-policy';
import type { LanguageModel } from 'ai';
import { z } from 'zod';
import { AgentError } from './errors';
import type { RequestApprovalPolicy } from './policy';
import type { AgentStore } from './store';
import { createTool, type Tool } from './tool';

/**
 * The agent spec: the plain description of an agent the runtime's modules work from (name,
 * instructions, model, tools, sub-agents, policies, store). The `Agent` class is a facade that
 * builds one and hands it to the engine; nothing in the engine knows the class.
 */

/** Steps a run may take when neither the request nor the agent says (behaviour §1). */
export const DEFAULT_MAX_STEPS = 8;

export interface AgentHooks {
  /** Runs just before `execute`; `{ proceed: false, output }` skips it and feeds `output` to the model. */
  beforeToolCall?: (call: {
    toolName: string;
    input: unknown;
    toolCallId: string;
    runId: string;
  }) => void | { proceed: false; output: unknown } | Promise<void | { proceed: false; output: unknown }>;
}

export interface AgentDefaultOptions {
  requireToolApproval?: RequestApprovalPolicy;
  maxSteps?: number;
  autoResumeSuspendedTools?: boolean;
}

/** One agent as the engine sees it. Built once by `buildAgentSpec`; holds no per-run state. */
export interface AgentSpec {
  readonly id: string;
  readonly name: string;
  readonly instructions: string;
  readonly model: LanguageModel;
  /** Its tools by id, delegation tools (`agent-<key>`) included. */
  readonly tools: ReadonlyMap<string, Tool>;
  /** Sub-agents by their delegation tool's name (`agent-<key>`). */
  readonly delegates: ReadonlyMap<string, AgentSpec>;
  /** Where its runs, pending calls, events and memory live. */
  readonly store: AgentStore;
  readonly defaultOptions: AgentDefaultOptions;
  readonly hooks: AgentHooks;
  /** How often a failed model call (429, 5xx, unreachable) is retried before the run fails (default: the AI SDK's, 2). */
  readonly maxRetries?: number;
  /** How long a model step waits for the next piece of the provider's answer, in ms (default 60,000; idle.ts). */
  readonly modelIdleTimeoutMs?: number;
  /** Approval policies kept as data, OR-ed with the code's (data-policy.ts). */
  readonly dataPolicy?: DataPolicySource;
}

/** What `buildAgentSpec` takes: an agent's own fields, its sub-agents' specs by key. */
export interface AgentSpecInput {
  id: string;
  name: string;
  instructions: string;
  model: LanguageModel;
  tools: Tool[];
  /** Sub-agents, each callable as the tool `agent-<key>` (supervisor pattern, behaviour §4). */
  agents?: Record<string, AgentSpec>;
  store: AgentStore;
  defaultOptions?: AgentDefaultOptions;
  hooks?: AgentHooks;
  maxRetries?: number;
  modelIdleTimeoutMs?: number;
  dataPolicy?: DataPolicySource;
}

/**
 * Builds an agent spec: every sub-agent becomes a delegation tool `agent-<key>` taking
 * `{ prompt: string }` (1–8,000 characters); its execution is a child run (behaviour §4).
 */
export function buildAgentSpec(input: AgentSpecInput): AgentSpec {
  const delegates = new Map<string, AgentSpec>();
  const tools = new Map(input.tools.map((tool) => [tool.id, tool]));
  for (const [key, sub] of Object.entries(input.agents ?? {})) {
    const toolName = `agent-${key}`;
    delegates.set(toolName, sub);
    tools.set(
      toolName,
      createTool({
        id: toolName,
        description: `Delegate a task to ${sub.name}. Give it the whole request in plain words.`,
        inputSchema: z.object({ prompt: z.string().min(1).max(8_000) }),
        // Never called: the runtime runs a delegation as a child run (see run-loop.ts `delegate`).
        execute: () => {
          throw new Error('delegation tools run as child runs');
        },
      }),
    );
  }
  return {
    id: input.id,
    name: input.name,
    instructions: input.instructions,
    model: input.model,
    tools,
    delegates,
    store: input.store,
    defaultOptions: input.defaultOptions ?? {},
    hooks: input.hooks ?? {},
    maxRetries: input.maxRetries,
    modelIdleTimeoutMs: input.modelIdleTimeoutMs,
    dataPolicy: input.dataPolicy,
  };
}

/** `spec` or one of its sub-agents (at any depth) by id. */
export function findSpec(spec: AgentSpec, agentId: string): AgentSpec | undefined {
  if (agentId === spec.id) return spec;
  for (const sub of spec.delegates.values()) {
    const found = findSpec(sub, agentId);
    if (found) return found;
  }
  return undefined;
}

const executableCache = new WeakMap<AgentSpec, string[]>();

/** `agentId toolName` of every tool the spec's tree runs, each agent id resolved as `findSpec` does. */
export function executableTools(spec: AgentSpec): string[] {
  let pairs = executableCache.get(spec);
  if (!pairs) {
    const found: string[] = [];
    const seen = new Set<string>();
    const visit = (agent: AgentSpec) => {
      if (!seen.has(agent.id)) {
        seen.add(agent.id);
        for (const toolName of agent.tools.keys()) found.push(`${agent.id} ${toolName}`);
      }
      for (const sub of agent.delegates.values()) visit(sub);
    };
    visit(spec);
    pairs = found;
    executableCache.set(spec, pairs);
  }
  return pairs;
}

/**
 * The spec's tool by name.
 * @throws AgentError UNKNOWN_TOOL
 */
export function requireTool(spec: AgentSpec, toolName: string): Tool {
  const tool = spec.tools.get(toolName);
  if (!tool) throw new AgentError('UNKNOWN_TOOL', `This agent has no tool ${toolName}.`);
  return tool;
}
