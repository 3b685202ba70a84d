/**
 * Countersign's runtime in process for `npm run bench`, built only from its public API: `Agent`,
 * `createTool`, `PrismaAgentStore` and `createPrismaClient`, as any application would.
 */
import pg from 'pg';
import { z } from 'zod';
import { Agent } from '../lib/agent/agent';
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
    return { db, instance: countersignInstance(agent) };
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

function countersignInstance(agent: Agent): RuntimeInstance {
  return {
    async start({ key, threadId }, mark) {
      const result = await agent.stream(benchPrompt(key), { threadId, resourceId: USER.id });
      let toolCallId: string | undefined;
      for await (const chunk of result.fullStream) {
        if (chunk.type === 'tool-call-approval' && !toolCallId) {
          toolCallId = chunk.payload.toolCallId;
          mark('approval');
        } else if (chunk.type === 'error') {
          throw new Error(`countersign stream failed: ${chunk.payload.message}`);
        }
      }
      if (!toolCallId) throw new Error('countersign stream ended without an approval chunk');
      return { runId: result.runId, toolCallId, key };
    },
    async approve(run, mark) {
      const result = await agent.approveToolCall({ runId: run.runId, toolCallId: run.toolCallId, actor: USER });
      let sawResult = false;
      for await (const chunk of result.fullStream) {
        if (chunk.type === 'tool-result' && !sawResult) {
          sawResult = true;
          mark('tool-result');
        } else if (chunk.type === 'error' || chunk.type === 'tool-error') {
          throw new Error(`countersign continuation failed: ${JSON.stringify(chunk.payload)}`);
        }
      }
      if (!sawResult) throw new Error('countersign continuation ended without a tool result');
    },
  };
}
