/**
 * Countersign's runtime in process for `npm run bench`, built only from its public API: `Agent`,
 * `createTool`, `PrismaAgentStore` and `createPrismaClient`, as any application would.
 */
import pg from 'pg';
import { z } from 'zod';
import { Agent } from '../lib/agent/agent';
import type { AgentChunk } from '../lib/agent/chunks';
import { createTool } from '../lib/agent/tool';
import { createPrismaClient } from '../lib/store/db';
import { PrismaAgentStore } from '../lib/store/prisma-store';
import { BENCH_TOOL, benchPrompt, createBenchModel, ExecutionLog, type BenchSystem, type RuntimeInstance } from './model';
import { countStatements } from './sql-counter';

/** The end user every benchmark run belongs to; they approve their own calls. */
const USER = { id: 'bench-user', role: 'user' as const };

/**
 * Two Countersign runtimes on one database: the primary and a second instance with its own Prisma
 * client (pool), store and agent, as another server process would have.
 *
 * @param databaseUrl a migrated, empty database
 * @param options.poolSize connections per instance
 */
export function createCountersignSystem(databaseUrl: string, options: { poolSize: number }): BenchSystem {
  const sql = countStatements(pg);
  const log = new ExecutionLog(sql);
  const tool = createTool({
    id: BENCH_TOOL.id,
    description: BENCH_TOOL.description,
    inputSchema: z.object({ key: z.string() }),
    requireApproval: true,
    execute: ({ key }) => {
      log.record(key);
      return { done: true, key };
    },
  });
  const instances = [0, 1].map(() => {
    const db = createPrismaClient(databaseUrl, { maxConnections: options.poolSize });
    const agent = new Agent({
      id: 'bench-agent',
      name: 'Bench agent',
      instructions: 'Call bench-action with the key you are given.',
      model: createBenchModel(),
      tools: [tool],
      store: new PrismaAgentStore(db),
    });
    return { db, instance: agentInstance(agent, { actor: USER, prompt: benchPrompt, label: 'countersign' }) };
  });
  return {
    name: 'countersign',
    client: () => instances[0].instance,
    secondary: instances[1].instance,
    sql,
    executions: log,
    close: async () => {
      await Promise.all(instances.map(({ db }) => db.$disconnect()));
    },
  };
}

/**
 * A runtime as a bench client: `start` streams `prompt(key)` on a new thread until the approval
 * chunk and on to the stream's end; `approve` approves as `actor` and reads the continuation to its
 * end. An error chunk or a failed tool fails the sample.
 *
 * @param agent the runtime's agent (the bench's, or the app's own for the "app" reference)
 * @param options.actor who starts and approves the runs (their own calls)
 * @param options.prompt the message that makes the model call the approval-requiring tool
 * @param options.label names the runtime in errors
 */
export function agentInstance(agent: Agent, options: { actor: { id: string; role: 'user' }; prompt: (key: string) => string; label: string }): RuntimeInstance {
  const { actor, prompt, label } = options;
  const failed = (chunk: AgentChunk) => chunk.type === 'error' || chunk.type === 'tool-error';
  return {
    async start({ key, threadId }, mark) {
      const result = await agent.stream(prompt(key), { threadId, resourceId: actor.id, requester: actor });
      let toolCallId: string | undefined;
      for await (const chunk of result.fullStream) {
        if (chunk.type === 'tool-call-approval' && !toolCallId) {
          toolCallId = chunk.payload.toolCallId;
          mark('approval');
        } else if (failed(chunk)) {
          throw new Error(`${label} stream failed: ${JSON.stringify(chunk.payload)}`);
        }
      }
      if (!toolCallId) throw new Error(`${label} stream ended without an approval chunk`);
      return { runId: result.runId, toolCallId, key };
    },
    async approve(run, mark) {
      const result = await agent.approveToolCall({ runId: run.runId, toolCallId: run.toolCallId, actor });
      let sawResult = false;
      for await (const chunk of result.fullStream) {
        if (chunk.type === 'tool-result' && !sawResult) {
          sawResult = true;
          mark('tool-result');
        } else if (failed(chunk)) {
          throw new Error(`${label} continuation failed: ${JSON.stringify(chunk.payload)}`);
        }
      }
      if (!sawResult) throw new Error(`${label} continuation ended without a tool result`);
    },
  };
}
