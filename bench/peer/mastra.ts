/**
 * The seed framework (Mastra: @mastra/core, @mastra/pg, @mastra/memory, installed in this folder by
 * `npm run bench` on first use) set up as its documentation describes human-in-the-loop approval:
 * a tool with `requireApproval: true`, `agent.stream()` until the `tool-call-approval` chunk, then
 * `agent.approveToolCall({ runId, toolCallId })`. Approval needs storage for the run's snapshot
 * (PostgresStore on the Mastra instance); memory keeps the thread's messages, as Countersign does.
 */
import { Mastra } from '@mastra/core';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { Memory } from '@mastra/memory';
import { PostgresStore } from '@mastra/pg';
import pg from 'pg';
import { z } from 'zod';
import { BENCH_TOOL, benchPrompt, createBenchModel, ExecutionLog, type BenchSystem, type RuntimeInstance } from '../model';
import { countStatements } from '../sql-counter';

const RESOURCE = 'bench-user';

/**
 * Mastra types models with its own copy of @ai-sdk/provider; the mock is the same object either way
 * (specification v4, which Mastra runs as is).
 */
type MastraModel = ConstructorParameters<typeof Agent>[0]['model'];

/**
 * Two Mastra instances on one database: the primary and a second `Mastra` with its own
 * PostgresStore (pool) and agent objects, as another server process would have.
 *
 * @param databaseUrl an empty database (Mastra creates its tables on init)
 * @param options.poolSize connections per instance
 */
export async function createMastraSystem(databaseUrl: string, options: { poolSize: number }): Promise<BenchSystem> {
  // Mastra reports feature usage to a remote analytics service unless this is set; the bench
  // only talks to 127.0.0.1.
  process.env.MASTRA_TELEMETRY_DISABLED = '1';
  const sql = countStatements(pg);
  const log = new ExecutionLog(sql);
  const tool = createTool({
    id: BENCH_TOOL.id,
    description: BENCH_TOOL.description,
    inputSchema: z.object({ key: z.string() }),
    requireApproval: true,
    execute: async ({ key }) => {
      log.record(key);
      return { done: true, key };
    },
  });
  const instances: { storage: PostgresStore; instance: RuntimeInstance }[] = [];
  for (let i = 0; i < 2; i++) {
    const storage = new PostgresStore({ id: `bench-store-${i}`, connectionString: databaseUrl, max: options.poolSize });
    const agent = new Agent({
      id: 'bench-agent',
      name: 'Bench agent',
      instructions: 'Call bench-action with the key you are given.',
      model: createBenchModel() as unknown as MastraModel,
      tools: { [BENCH_TOOL.id]: tool },
      memory: new Memory(),
    });
    const mastra = new Mastra({ agents: { benchAgent: agent }, storage, logger: false });
    // Tables are created here, not inside the first measured run.
    await storage.init();
    instances.push({ storage, instance: mastraInstance(mastra.getAgent('benchAgent')) });
  }
  return {
    name: 'mastra',
    client: () => instances[0].instance,
    secondary: instances[1].instance,
    sql,
    executions: log,
    close: async () => {
      await Promise.all(instances.map(({ storage }) => storage.close()));
    },
  };
}

function mastraInstance(agent: Agent): RuntimeInstance {
  return {
    async start({ key, threadId }, mark) {
      const stream = await agent.stream(benchPrompt(key), { memory: { thread: threadId, resource: RESOURCE } });
      let toolCallId: string | undefined;
      for await (const chunk of stream.fullStream) {
        if (chunk.type === 'tool-call-approval' && !toolCallId) {
          toolCallId = chunk.payload.toolCallId;
          mark('approval');
        } else if (chunk.type === 'error') {
          throw new Error(`mastra stream failed: ${String((chunk.payload as { error?: unknown }).error)}`);
        }
      }
      if (!toolCallId) throw new Error('mastra stream ended without an approval chunk');
      return { runId: stream.runId, toolCallId, key };
    },
    async approve(run, mark) {
      const stream = await agent.approveToolCall({ runId: run.runId, toolCallId: run.toolCallId });
      let sawResult = false;
      for await (const chunk of stream.fullStream) {
        if (chunk.type === 'tool-result' && !sawResult) {
          sawResult = true;
          mark('tool-result');
        } else if (chunk.type === 'error' || chunk.type === 'tool-error') {
          throw new Error(`mastra continuation failed: ${JSON.stringify(chunk.payload)}`);
        }
      }
      if (!sawResult) throw new Error('mastra continuation ended without a tool result');
    },
  };
}
