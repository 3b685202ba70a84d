import canonicalize from 'canonicalize';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { createTool } from '../../lib/agent/tool';
import { decisionContent, type DecisionRow } from '../../lib/audit/chain';
import { recordAuditEvent } from '../../lib/audit/events';
import { verifyAuditChain } from '../../lib/audit/verify';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { databaseUrl, newThreadId } from '../support/harness';

/*
 * The audit hash chain (lib/audit/chain.ts): decisions (written by the one hot claim statement) and
 * audit events are links of one chain, serialised by the chain head's row lock, and the verifier
 * recomputes it from the rows and names the first entry that was changed.
 */

const user = { id: 'user-ada', role: 'user' as const };
const gated = createTool({
  id: 'gated',
  description: 'needs approval',
  inputSchema: z.object({ n: z.string() }),
  requireApproval: true,
  execute: ({ n }) => ({ ok: n }),
});

function server() {
  const db = createPrismaClient(databaseUrl(), { maxConnections: 5 });
  const agent = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'chain', model: new ScriptedModel(), tools: [gated], store: new PrismaAgentStore(db) });
  return { db, agent };
}
const servers = [server(), server()];
const sql = new pg.Client({ connectionString: databaseUrl() });
// recordAuditEvent uses the app's own client (lib/store/db), configured from DATABASE_URL.
process.env.DATABASE_URL = databaseUrl();
afterAll(async () => {
  await Promise.all(servers.map(({ db }) => db.$disconnect()));
  await sql.end();
});

/** Runs SQL with the append-only triggers off (what someone with database access could do). */
async function tamper(statement: string, params: unknown[]) {
  await sql.query('BEGIN');
  await sql.query('ALTER TABLE decisions DISABLE TRIGGER decisions_no_update_delete');
  await sql.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete');
  await sql.query(statement, params);
  await sql.query('ALTER TABLE decisions ENABLE TRIGGER decisions_no_update_delete');
  await sql.query('ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete');
  await sql.query('COMMIT');
}

describe('audit hash chain', () => {
  it('the SQL canonical text of a decision equals RFC 8785 (canonicalize) for awkward strings', async () => {
    await sql.connect();
    const awkward = ['plain', 'quote " and \\ backslash', 'tab\tnew\nline\r\u0001\u001f\u007f', 'ünïcödé ✓ 𝄞 \u2028\u2029', '⟪\u202e⟫', ''];
    for (const reason of [...awkward, null]) {
      const row: DecisionRow = {
        id: 'd-1',
        pendingCallId: 'p-1',
        runId: 'r-1',
        toolCallId: 'call~1',
        toolName: 'gated',
        kind: 'decline',
        approved: false,
        reason,
        actorId: 'user-ada',
        actorRole: 'user',
        fingerprint: 'f'.repeat(64),
        args: {},
        editedArgs: null,
        editedFingerprint: null,
        resumeData: null,
        createdAt: new Date('2026-11-30T10:11:12.345Z'),
      };
      const { rows } = await sql.query<{ text: string }>(
        `SELECT countersign_decision_content($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::timestamptz) AS text`,
        ['d-1', 'p-1', 'r-1', 'call~1', 'gated', 'decline', false, reason, 'user-ada', 'user', 'f'.repeat(64), null, JSON.parse(decisionContent(row)).dataHash, row.createdAt.toISOString()],
      );
      expect(rows[0].text, JSON.stringify(reason)).toBe(decisionContent(row));
      expect(JSON.parse(rows[0].text).reason).toBe(reason);
      expect(rows[0].text).toBe(canonicalize(JSON.parse(rows[0].text)));
    }
  });

  it('200 decisions made at once by two servers, with audit events between them, form one unbroken chain', async () => {
    const [a, b] = servers;
    const paused = await Promise.all(
      Array.from({ length: 200 }, (_, i) => a.agent.generate(`/tool gated {"n":"${i}"}`, { threadId: newThreadId(), resourceId: user.id })),
    );
    const before = await verifyAuditChain(a.db);
    expect(before.ok).toBe(true);
    await Promise.all([
      ...paused.map((run, i) => {
        const call = run.suspendedToolCalls[0];
        const agent = (i % 2 === 0 ? a : b).agent;
        return i % 3 === 0
          ? agent.declineToolCallGenerate({ runId: run.runId, toolCallId: call.toolCallId, actor: user, reason: `no ${i}` })
          : agent.approveToolCallGenerate({ runId: run.runId, toolCallId: call.toolCallId, actor: user });
      }),
      ...Array.from({ length: 20 }, (_, i) => recordAuditEvent({ action: 'auth.signed_in', actor: user, target: { type: 'user', id: `u-${i}` }, details: { n: i } })),
    ]);
    const runIds = paused.map((run) => run.runId);
    const decisions = await a.db.decision.findMany({ where: { runId: { in: runIds } }, orderBy: { chainSeq: 'asc' } });
    expect(decisions).toHaveLength(200);
    // Every one is a link, each with its own number (no fork: no two share a previous hash).
    expect(new Set(decisions.map((d) => String(d.chainSeq))).size).toBe(200);
    const { rows: forks } = await sql.query(
      `SELECT prev_hash FROM (SELECT prev_hash FROM decisions WHERE prev_hash IS NOT NULL UNION ALL SELECT prev_hash FROM audit_events WHERE prev_hash IS NOT NULL) x GROUP BY prev_hash HAVING count(*) > 1`,
    );
    expect(forks).toEqual([]);
    const report = await verifyAuditChain(a.db);
    expect(report).toMatchObject({ ok: true, firstBroken: null });
    expect(report.checked).toBeGreaterThanOrEqual(before.checked + 220);
    expect(report.head.seq).toBe(String(report.checked));
  }, 240_000);

  it('a check that runs while entries are written reads one snapshot: it never reports a link written meanwhile as broken', async () => {
    const [a] = servers;
    let writing = true;
    const writes = (async () => {
      for (let i = 0; i < 80; i += 1) {
        await Promise.all([0, 1].map(() => recordAuditEvent({ action: 'auth.signed_in', actor: user, target: { type: 'user', id: user.id } })));
      }
      writing = false;
    })();
    const reports = [];
    while (writing) reports.push(await verifyAuditChain(a.db));
    await writes;
    reports.push(await verifyAuditChain(a.db));
    expect(reports.length).toBeGreaterThan(1);
    expect(reports.filter((report) => !report.ok)).toEqual([]);
  }, 120_000);

  it('a reason changed in SQL is named by the verifier, as are changed args and a deleted entry', async () => {
    const [a] = servers;
    const run = await a.agent.generate('/tool gated {"n":"tamper"}', { threadId: newThreadId(), resourceId: user.id });
    await a.agent.declineToolCallGenerate({ runId: run.runId, toolCallId: run.suspendedToolCalls[0].toolCallId, actor: user, reason: 'original reason' });
    const target = await a.db.decision.findFirstOrThrow({ where: { runId: run.runId } });
    // Later links exist too: the verifier must stop at the changed one, not at the end.
    await recordAuditEvent({ action: 'auth.signed_in', actor: user, target: { type: 'user', id: user.id } });
    expect((await verifyAuditChain(a.db)).ok).toBe(true);

    await tamper('UPDATE decisions SET reason = $1 WHERE id = $2', ['a nicer reason', target.id]);
    const changed = await verifyAuditChain(a.db);
    expect(changed.ok).toBe(false);
    expect(changed.firstBroken).toMatchObject({ table: 'decisions', id: target.id, seq: String(target.chainSeq), problem: 'content_changed' });
    await tamper('UPDATE decisions SET reason = $1 WHERE id = $2', ['original reason', target.id]);
    expect((await verifyAuditChain(a.db)).ok).toBe(true);

    await tamper(`UPDATE decisions SET args = '{"n":"other"}'::jsonb WHERE id = $1`, [target.id]);
    expect((await verifyAuditChain(a.db)).firstBroken).toMatchObject({ id: target.id, problem: 'args_changed' });
    await tamper(`UPDATE decisions SET args = '{"n":"tamper"}'::jsonb WHERE id = $1`, [target.id]);
    expect((await verifyAuditChain(a.db)).ok).toBe(true);

    // An audit event's details changed, then an event deleted.
    const event = await a.db.auditEvent.findFirstOrThrow({ orderBy: { chainSeq: 'desc' } });
    await tamper(`UPDATE audit_events SET details = '{"forged":true}'::jsonb WHERE id = $1`, [event.id]);
    expect((await verifyAuditChain(a.db)).firstBroken).toMatchObject({ table: 'audit_events', id: event.id, problem: 'content_changed' });
    await tamper(`UPDATE audit_events SET details = $2::jsonb WHERE id = $1`, [event.id, JSON.stringify(event.details)]);
    expect((await verifyAuditChain(a.db)).ok).toBe(true);
    await tamper('DELETE FROM decisions WHERE id = $1', [target.id]);
    const deleted = await verifyAuditChain(a.db);
    expect(deleted.firstBroken).toMatchObject({ problem: 'missing_link', seq: String(target.chainSeq! + 1n) });
  });
});
