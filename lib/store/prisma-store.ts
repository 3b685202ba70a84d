import type { ModelMessage } from 'ai';
import { randomUUID } from 'node:crypto';
import type { AgentChunk } from '@/lib/agent/chunks';
import type {
  AgentStore,
  CallOutcome,
  NewPendingCall,
  PendingCall,
  RunRecord,
  RunState,
  RunStatus,
  SuspendedRunsQuery,
} from '@/lib/agent/store';
import type { Approvers } from '@/lib/agent/tool';
import { Prisma, type PrismaClient } from '@/lib/generated/prisma/client';

type Tx = Prisma.TransactionClient;
type PendingRow = Prisma.PendingToolCallGetPayload<object>;
type RunRow = Prisma.RunGetPayload<object>;

const json = (value: unknown) => (value ?? null) as Prisma.InputJsonValue;
const nullableJson = (value: unknown) => (value === null || value === undefined ? undefined : (value as Prisma.InputJsonValue));

export function toPendingCall(row: PendingRow): PendingCall {
  return {
    id: row.id,
    runId: row.runId,
    toolCallId: row.toolCallId,
    kind: row.kind as PendingCall['kind'],
    status: row.status as PendingCall['status'],
    toolName: row.toolName,
    args: row.args,
    fingerprint: row.fingerprint,
    approvers: row.approvers as Approvers,
    policy: row.policy,
    suspendPayload: row.suspendPayload,
    resumeSchema: row.resumeSchema,
    threadId: row.threadId,
    resourceId: row.resourceId,
    agentId: row.agentId,
    chain: row.chain,
    rootRunId: row.rootRunId,
    rootToolCallId: row.rootToolCallId,
    childRunId: row.childRunId,
    output: (row.output as CallOutcome | null) ?? null,
    resumeData: row.resumeData,
    decisionReason: row.decisionReason,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    createdAt: row.createdAt,
  };
}

function toRunRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    threadId: row.threadId,
    resourceId: row.resourceId,
    agentId: row.agentId,
    parentRunId: row.parentRunId,
    messageId: row.messageId,
    status: row.status as RunStatus,
    state: (row.state as unknown as RunState | null) ?? null,
  };
}

async function insertEvents(tx: Tx, runId: string, chunks: AgentChunk[]) {
  if (chunks.length === 0) return;
  await tx.runEvent.createMany({ data: chunks.map((chunk) => ({ runId, chunk: json(chunk) })) });
}

function pendingData(call: NewPendingCall, status: 'pending' | 'waiting' = 'pending'): Prisma.PendingToolCallUncheckedCreateInput {
  return {
    ...call,
    status,
    args: json(call.args),
    suspendPayload: nullableJson(call.suspendPayload),
  };
}

/**
 * The runtime's store on PostgreSQL via Prisma. Every method is one transaction; claims are
 * compare-and-set updates so exactly one decision wins across processes. Source: SPEC §5, §10.
 */
export class PrismaAgentStore implements AgentStore {
  constructor(private readonly db: PrismaClient) {}

  async ensureThread({ threadId, resourceId, agentId, title }: { threadId: string; resourceId: string; agentId: string; title?: string }) {
    const existing = await this.db.thread.findUnique({ where: { id: threadId } });
    if (existing) {
      if (existing.resourceId !== resourceId) throw new Error(`Thread ${threadId} belongs to another resource`);
      await this.db.thread.update({ where: { id: threadId }, data: { updatedAt: new Date() } });
      return;
    }
    await this.db.thread.create({ data: { id: threadId, resourceId, agentId, title: title?.trim() || 'New chat' } });
  }

  async loadHistory({ threadId }: { threadId: string }): Promise<ModelMessage[]> {
    const rows = await this.db.message.findMany({ where: { threadId }, orderBy: { seq: 'asc' } });
    return rows.map((row) => ({ role: row.role, content: row.content }) as ModelMessage);
  }

  async createRun({ run, userMessage }: { run: RunRecord; userMessage?: { id: string; message: ModelMessage } }) {
    await this.db.$transaction(async (tx) => {
      await tx.run.create({
        data: {
          id: run.id,
          threadId: run.threadId,
          resourceId: run.resourceId,
          agentId: run.agentId,
          parentRunId: run.parentRunId,
          messageId: run.messageId,
          status: run.status,
          state: json(run.state),
        },
      });
      if (userMessage) {
        await tx.message.create({
          data: {
            id: userMessage.id,
            threadId: run.threadId,
            role: userMessage.message.role,
            content: json(userMessage.message.content),
            runId: run.id,
          },
        });
      }
    });
  }

  async addUserMessage({ threadId, runId, message }: { threadId: string; runId: string; message: ModelMessage }) {
    await this.db.message.create({
      data: { id: randomUUID(), threadId, role: message.role, content: json(message.content), runId },
    });
  }

  async loadRun({ runId }: { runId: string }) {
    const row = await this.db.run.findUnique({ where: { id: runId } });
    return row ? toRunRecord(row) : null;
  }

  async appendEvents({ runId, chunks }: { runId: string; chunks: AgentChunk[] }) {
    if (chunks.length === 0) return;
    await this.db.runEvent.createMany({ data: chunks.map((chunk) => ({ runId, chunk: json(chunk) })) });
  }

  async suspendRun({ runId, state, pendingCalls, events }: { runId: string; state: RunState; pendingCalls: NewPendingCall[]; events: AgentChunk[] }) {
    await this.db.$transaction(async (tx) => {
      await insertEvents(tx, runId, events);
      await tx.run.update({ where: { id: runId }, data: { status: 'suspended', state: json(state) } });
      await tx.pendingToolCall.createMany({ data: pendingCalls.map((call) => pendingData(call)) });
    });
  }

  async saveRunState({ runId, state, events }: { runId: string; state: RunState; events: AgentChunk[] }) {
    await this.db.$transaction(async (tx) => {
      await insertEvents(tx, runId, events);
      await tx.run.update({ where: { id: runId }, data: { state: json(state) } });
    });
  }

  async finishRun({
    runId,
    status,
    error,
    events,
    newMessages,
  }: {
    runId: string;
    status: 'completed' | 'failed' | 'cancelled';
    error?: string;
    events: AgentChunk[];
    newMessages: ModelMessage[];
  }) {
    await this.db.$transaction(async (tx) => {
      await insertEvents(tx, runId, events);
      // The resume state goes; conversation, events, pending rows and decisions stay (SPEC §5).
      const run = await tx.run.update({
        where: { id: runId },
        data: { status, error: error ?? null, state: Prisma.DbNull },
      });
      if (newMessages.length > 0 && run.parentRunId === null) {
        await tx.message.createMany({
          data: newMessages.map((message) => ({
            id: randomUUID(),
            threadId: run.threadId,
            role: message.role,
            content: json(message.content),
            runId,
          })),
        });
      }
    });
  }

  async listPendingCalls({ runId }: { runId: string }) {
    const rows = await this.db.pendingToolCall.findMany({ where: { runId }, orderBy: { createdAt: 'asc' } });
    return rows.map(toPendingCall);
  }

  async listPendingCallsByRoot({ rootRunId }: { rootRunId: string }) {
    const rows = await this.db.pendingToolCall.findMany({ where: { rootRunId }, orderBy: { createdAt: 'asc' } });
    return rows.map(toPendingCall);
  }

  async startDelegation({ call }: { call: NewPendingCall }) {
    await this.db.pendingToolCall.create({ data: pendingData(call, 'waiting') });
  }

  async closeDelegation({ childRunId, status, output }: { childRunId: string; status: 'completed' | 'failed'; output: CallOutcome }) {
    await this.db.pendingToolCall.updateMany({
      where: { childRunId, kind: 'delegation', status: 'waiting' },
      data: { status, output: json(output) },
    });
  }

  async findOpenPendingCalls({ threadId, resourceId, runId }: { threadId?: string; resourceId?: string; runId?: string }) {
    const rows = await this.db.pendingToolCall.findMany({
      where: { status: 'pending', threadId, resourceId, runId },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map(toPendingCall);
  }

  async claimPendingCall(input: Parameters<AgentStore['claimPendingCall']>[0]) {
    return this.db.$transaction(async (tx) => {
      // Compare-and-set: only a row still `pending` can be claimed; a lost race updates nothing.
      const { count } = await tx.pendingToolCall.updateMany({
        where: { id: input.pendingCallId, status: 'pending' },
        data: {
          status: input.status,
          decidedBy: input.decidedBy,
          decidedAt: new Date(),
          decisionReason: input.reason,
          resumeData: nullableJson(input.resumeData),
          args: json(input.args),
          fingerprint: input.fingerprint,
          output: nullableJson(input.output),
        },
      });
      if (count === 0) return null;
      const row = await tx.pendingToolCall.findUniqueOrThrow({ where: { id: input.pendingCallId } });
      const d = input.decision;
      await tx.decision.create({
        data: {
          id: d.id,
          pendingCallId: row.id,
          runId: row.runId,
          toolCallId: row.toolCallId,
          kind: d.kind,
          approved: d.approved,
          reason: d.reason,
          actorId: d.actorId,
          actorRole: d.actorRole,
          fingerprint: d.fingerprint,
          args: json(d.args),
          editedArgs: nullableJson(d.editedArgs),
          editedFingerprint: d.editedFingerprint,
          resumeData: nullableJson(d.resumeData),
        },
      });
      return toPendingCall(row);
    });
  }

  async closePendingCall(input: Parameters<AgentStore['closePendingCall']>[0]) {
    const row = await this.db.pendingToolCall.findUniqueOrThrow({ where: { id: input.pendingCallId } });
    await this.db.$transaction(async (tx) => {
      await insertEvents(tx, row.runId, input.events);
      await tx.pendingToolCall.update({
        where: { id: input.pendingCallId },
        data: { status: input.status, output: nullableJson(input.output) },
      });
      if (input.newPendingCall) await tx.pendingToolCall.create({ data: pendingData(input.newPendingCall) });
    });
  }

  async acquireContinuation({ runId }: { runId: string }) {
    return this.db.$transaction(async (tx) => {
      // Row lock: deciders of one step serialise here, so exactly one of them continues the run.
      const locked = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM runs WHERE id = ${runId} FOR UPDATE`;
      if (locked[0]?.status !== 'suspended') return null;
      const open = await tx.pendingToolCall.count({
        where: { runId, status: { in: ['pending', 'waiting', 'approved', 'resumed'] } },
      });
      if (open > 0) return null;
      const run = await tx.run.update({ where: { id: runId }, data: { status: 'running' } });
      return toRunRecord(run);
    });
  }

  async renewLease({ runId, ms }: { runId: string; ms: number }) {
    await this.db.$executeRaw`UPDATE runs SET lease_expires_at = now() + make_interval(secs => ${ms / 1000}) WHERE id = ${runId}`;
  }

  async listAbandonedRuns({ before, limit }: { before: Date; limit: number }) {
    return this.db.$queryRaw<{ runId: string; threadId: string }[]>`
      SELECT r.id AS "runId", r.thread_id AS "threadId"
      FROM runs r
      WHERE r.parent_run_id IS NULL
        AND r.lease_expires_at < ${before}
        AND (
          EXISTS (SELECT 1 FROM runs c WHERE c.status = 'running' AND (c.id = r.id OR c.id IN (
            SELECT p.child_run_id FROM pending_tool_calls p WHERE p.root_run_id = r.id AND p.child_run_id IS NOT NULL)))
          OR EXISTS (SELECT 1 FROM pending_tool_calls p WHERE p.root_run_id = r.id AND p.status IN ('approved', 'resumed'))
        )
      ORDER BY r.lease_expires_at
      LIMIT ${limit}`;
  }

  async markRunInterrupted({
    rootRunId,
    error,
    events,
  }: {
    rootRunId: string;
    error: string;
    events: (unknownCalls: PendingCall[]) => AgentChunk[];
  }) {
    return this.db.$transaction(async (tx) => {
      // Lock the top-level run; a live process renewing its lease meanwhile makes this a no-op.
      const [top] = await tx.$queryRaw<{ lease_expires_at: Date | null }[]>`
        SELECT lease_expires_at FROM runs WHERE id = ${rootRunId} FOR UPDATE`;
      if (!top || (top.lease_expires_at && top.lease_expires_at > new Date())) return [];
      const claimed = await tx.pendingToolCall.findMany({ where: { rootRunId, status: { in: ['approved', 'resumed'] } } });
      await tx.pendingToolCall.updateMany({ where: { rootRunId, status: { in: ['approved', 'resumed'] } }, data: { status: 'unknown' } });
      const childIds = (
        await tx.pendingToolCall.findMany({ where: { rootRunId, childRunId: { not: null } }, select: { childRunId: true } })
      ).map((row) => row.childRunId!);
      await tx.run.updateMany({
        where: { id: { in: [rootRunId, ...childIds] }, status: { in: ['running', 'suspended'] } },
        data: { status: 'failed', error, state: Prisma.DbNull },
      });
      // Questions and approvals still open in the tree can no longer continue anything.
      await tx.pendingToolCall.updateMany({ where: { rootRunId, status: { in: ['pending', 'waiting'] } }, data: { status: 'superseded' } });
      const unknown = claimed.map((row) => toPendingCall({ ...row, status: 'unknown' }));
      await insertEvents(tx, rootRunId, events(unknown));
      return unknown;
    });
  }

  async listSuspendedRuns(query: SuspendedRunsQuery) {
    const where: Prisma.RunWhereInput = {
      status: 'suspended',
      parentRunId: null,
      agentId: query.agentId,
      threadId: query.threadId,
      resourceId: query.resourceId,
      updatedAt: { gte: query.fromDate, lte: query.toDate },
    };
    const paginate = query.page !== undefined && query.perPage !== undefined;
    const [total, rows] = await Promise.all([
      this.db.run.count({ where }),
      this.db.run.findMany({
        where,
        orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }],
        ...(paginate ? { skip: query.page! * query.perPage!, take: query.perPage! } : {}),
      }),
    ]);
    // Calls anywhere under each run (its own and its sub-agents'), addressed through the run.
    const calls = await this.db.pendingToolCall.findMany({
      where: { rootRunId: { in: rows.map((row) => row.id) }, status: 'pending' },
      orderBy: { createdAt: 'asc' },
    });
    return {
      total,
      runs: rows.map((row) => ({
        run: toRunRecord(row),
        suspendedAt: row.updatedAt,
        calls: calls.filter((call) => call.rootRunId === row.id).map(toPendingCall),
      })),
    };
  }
}
