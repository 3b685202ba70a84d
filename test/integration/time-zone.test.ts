import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { recoverAbandonedRuns } from '../../lib/agent/recovery';
import { createTool } from '../../lib/agent/tool';
import { auditQuerySchema, listAudit } from '../../lib/audit/queries';
import { seed } from '../../lib/demo/seed';
import { createOpsTools } from '../../lib/demo/tools';
import type { PrismaClient } from '../../lib/generated/prisma/client';
import { inboxQuerySchema, listInbox } from '../../lib/inbox/queries';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { newThreadId } from '../support/harness';
import { createScratchDatabase } from '../support/scratch-db';

/*
 * A PostgreSQL whose default session time zone is not UTC. The pg adapter writes DateTime
 * parameters without an offset and reads timestamptz by overwriting the offset, so without the
 * connection's `TimeZone=UTC` every instant below would be off by New York's 4–5 hours: live
 * leases would look expired (and expired ones live), and inbox and audit times would be wrong.
 */

const ZONE = 'America/New_York';
const user = { id: 'user-ada', role: 'user' as const };
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let db: PrismaClient;

beforeAll(async () => {
  scratch = await createScratchDatabase('countersign_new_york', { timezone: ZONE });
  await seed(scratch.url);
  db = createPrismaClient(scratch.url, { maxConnections: 3 });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await scratch?.drop();
});

const near = (at: Date | string, ms = 60_000) => Math.abs(new Date(at).getTime() - Date.now()) < ms;

/** An approval-gated tool that runs until released, so the run's lease is live while it executes. */
function gatedTool() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let started: () => void = () => {};
  const executing = new Promise<void>((resolve) => (started = resolve));
  const tool = createTool({
    id: 'slow',
    description: 'waits',
    inputSchema: z.object({}),
    requireApproval: true,
    execute: async () => {
      started();
      await released;
      return { done: true };
    },
  });
  return { tool, executing, release };
}

describe(`a database whose time zone is ${ZONE}`, () => {
  it('the database default is not UTC, and the app pins its sessions to UTC', async () => {
    const raw = new pg.Client({ connectionString: scratch.url });
    await raw.connect();
    try {
      expect((await raw.query('SHOW timezone')).rows[0].TimeZone).toBe(ZONE);
    } finally {
      await raw.end();
    }
    const [session] = await db.$queryRaw<{ zone: string }[]>`SELECT current_setting('TimeZone') AS zone`;
    expect(session.zone).toBe('UTC');
  });

  it('leases: a run executing a tool is left alone; one whose lease ran out is recovered', async () => {
    const store = new PrismaAgentStore(db);
    const gated = gatedTool();
    const agent = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'tz', model: new ScriptedModel(), tools: [gated.tool], store });
    const paused = await agent.generate('/tool slow {}', { threadId: newThreadId(), resourceId: user.id });
    const running = await agent.approveToolCall({ runId: paused.runId, actor: user });
    await gated.executing;

    const lease = await db.run.findUniqueOrThrow({ where: { id: paused.runId }, select: { leaseExpiresAt: true } });
    expect(near(lease.leaseExpiresAt!)).toBe(true);
    expect((await recoverAbandonedRuns({ store })).map((run) => run.runId)).not.toContain(paused.runId);
    expect((await db.pendingToolCall.findFirstOrThrow({ where: { runId: paused.runId } })).status).toBe('approved');
    gated.release();
    expect(await running.finishReason).toBe('stop');

    // A process that died after its claim: the row claimed, the lease a second in the past (written as a Date).
    const dead = await agent.generate('/tool slow {}', { threadId: newThreadId(), resourceId: user.id });
    const row = await db.pendingToolCall.findFirstOrThrow({ where: { runId: dead.runId } });
    await db.pendingToolCall.update({ where: { id: row.id }, data: { status: 'approved' } });
    await db.run.update({ where: { id: dead.runId }, data: { leaseExpiresAt: new Date(Date.now() - 1_000) } });
    expect(await recoverAbandonedRuns({ store })).toContainEqual({ runId: dead.runId, unknownToolCalls: ['slow'] });
    expect((await db.pendingToolCall.findUniqueOrThrow({ where: { id: row.id } })).status).toBe('unknown');
  });

  it('inbox and audit: times are the real instants, cursors page through every row, date filters hold', async () => {
    const agent = new Agent({
      id: 'ops-agent',
      name: 'Ops',
      instructions: 'tz',
      model: new ScriptedModel(),
      tools: createOpsTools(db),
      store: new PrismaAgentStore(db),
    });
    const tag = `tz-${Date.now()}`;
    const paused = [];
    for (let i = 0; i < 4; i += 1) {
      paused.push(await agent.generate(`/tool send-email {"to":"tz@example.com","subject":"${tag}-${i}","body":"x"}`, { threadId: newThreadId(), resourceId: user.id }));
    }
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listInbox(inboxQuerySchema.parse({ limit: 1, toolName: 'send-email', cursor }), db);
      for (const item of page.items) expect(near(item.createdAt)).toBe(true);
      ids.push(...page.items.map((item) => item.runId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(ids).toEqual(paused.map((result) => result.runId).reverse());

    for (const result of paused.slice(0, 2)) await (await agent.approveToolCall({ runId: result.runId, actor: user })).text;
    const since = await listAudit(auditQuerySchema.parse({ toolName: 'send-email', from: new Date(Date.now() - 60_000).toISOString() }), db);
    expect(since.entries.map((entry) => entry.runId).sort()).toEqual(paused.slice(0, 2).map((result) => result.runId).sort());
    for (const entry of since.entries) expect(near(entry.at)).toBe(true);
    const before = await listAudit(auditQuerySchema.parse({ toolName: 'send-email', to: new Date(Date.now() - 60_000).toISOString() }), db);
    expect(before.entries).toEqual([]);
    const outbox = await db.outboxEmail.findMany({ where: { subject: { startsWith: tag } } });
    // The two approved calls sent their email.
    expect(outbox).toHaveLength(2);
    for (const email of outbox) expect(near(email.createdAt)).toBe(true);
  });
});
