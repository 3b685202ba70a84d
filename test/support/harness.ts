import { Agent, type AgentConfig } from '../../lib/agent/agent';
import type { AgentChunk } from '../../lib/agent/chunks';
import { seed } from '../../lib/demo/seed';
import { createOpsTools } from '../../lib/demo/tools';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';

/**
 * The database of this test file: its worker's own copy of the migrated test database (set up by
 * test/support/database-env.ts before the file runs).
 */
export function databaseUrl(): string {
  const url = process.env.TEST_WORKER_DATABASE_URL;
  if (!url) throw new Error('TEST_WORKER_DATABASE_URL is not set: run this file through Vitest, whose setup file sets it');
  return url;
}

/** A runtime as a fresh process would build it: its own Prisma client, store and agent objects. */
export async function createRuntime(overrides: Partial<AgentConfig> = {}) {
  const db = createPrismaClient(databaseUrl());
  await seed(databaseUrl());
  const store = new PrismaAgentStore(db);
  const agent = new Agent({
    id: 'ops-agent',
    name: 'Ops agent',
    instructions: 'test',
    model: new ScriptedModel(),
    tools: createOpsTools(db),
    store,
    ...overrides,
  });
  return { db, store, agent, close: () => db.$disconnect() };
}

/** Reads a stream to its end. */
export async function collect(stream: ReadableStream<AgentChunk>): Promise<AgentChunk[]> {
  const out: AgentChunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

export function only<T extends AgentChunk['type']>(chunks: AgentChunk[], type: T) {
  return chunks.filter((chunk): chunk is Extract<AgentChunk, { type: T }> => chunk.type === type);
}

export const newThreadId = () => `thread-${crypto.randomUUID()}`;
