/**
 * The HTTP column's work without HTTP, for `npm run bench`'s "HTTP − in process" column: the app's
 * own agent (`ops-agent` from the app's registry, the offline scripted model, its `send-email` tool
 * that writes an outbox row, the app's store with its hooks) called in this process on the HTTP
 * server's database, as the demo user Ada. The in-process Countersign column runs another agent
 * (the bench's mock model, whose answer is one word, and a tool that writes nothing); subtracting
 * it from the HTTP figures counted that difference as HTTP's. Latency only: no throughput batch.
 */
import pg from 'pg';
import { agentInstance } from './countersign';
import { outboxExecutions, sendEmailCommand, serverEnv } from './http';
import type { BenchSystem } from './model';

const ADA = { id: 'user-ada', role: 'user' as const };

/**
 * @param databaseUrl the HTTP server's database (migrated and seeded)
 * @returns the system, named `app`
 */
export async function createAppAgentSystem(databaseUrl: string): Promise<BenchSystem> {
  // The app's modules read their settings from the environment, as the server does.
  Object.assign(process.env, serverEnv(databaseUrl));
  const { getAgent } = await import('../lib/runs/agents');
  const { prisma } = await import('../lib/store/db');
  const agent = getAgent('ops-agent');
  const instance = agentInstance(agent, { actor: ADA, prompt: sendEmailCommand, label: 'app agent' });

  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  return {
    name: 'app',
    latencyOnly: true,
    client: () => instance,
    executions: outboxExecutions(db),
    close: async () => {
      await db.end();
      await prisma().$disconnect();
    },
  };
}
