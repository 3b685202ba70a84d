import { createHash, createHmac } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { createTool } from '../../lib/agent/tool';
import { chainJsonLinesStream } from '../../lib/audit/chain-export';
import { linkHash } from '../../lib/audit/chain';
import { recordAuditEvent } from '../../lib/audit/events';
import { verifyJsonLinesExport } from '../../lib/audit/export-verify';
import { verifyAuditChain } from '../../lib/audit/verify';
import { ScriptedModel } from '../../lib/models/scripted';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import { databaseUrl, newThreadId } from '../support/harness';

/*
 * The chain's links are keyed (AUDIT_CHAIN_KEY, HMAC-SHA256): whoever owns the database can change a
 * decision, recompute its content hash with the database's own function and every later link with
 * sha256 (or with a key of their own), and move the head — and the verifier (`verifyAuditChain`,
 * behind GET /api/audit/verify), `npm run audit:verify` and the offline export check all say BROKEN.
 */

process.env.DATABASE_URL = databaseUrl();
const user = { id: 'user-ada', role: 'user' as const };
const gated = createTool({ id: 'gated', description: 'needs approval', inputSchema: z.object({ n: z.string() }), requireApproval: true, execute: ({ n }) => ({ ok: n }) });
const db = createPrismaClient(databaseUrl(), { maxConnections: 3 });
const agent = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'key', model: new ScriptedModel(), tools: [gated], store: new PrismaAgentStore(db) });
const sql = new pg.Client({ connectionString: databaseUrl() });

afterAll(async () => {
  await db.$disconnect();
  await sql.end();
});

/**
 * What the database's owner can do without the key: change the decision's reason, recompute its
 * content hash with countersign_decision_content, then relink it and every later link with `relink`
 * and move the head — append-only triggers off.
 */
async function rewrite(decisionId: string, reason: string, relink: (prev: string, content: string) => string) {
  await sql.query('BEGIN');
  await sql.query('ALTER TABLE decisions DISABLE TRIGGER decisions_no_update_delete');
  await sql.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete');
  await sql.query(
    `UPDATE decisions d SET reason = $2, content_hash = encode(sha256(convert_to(countersign_decision_content(d.id, d.pending_call_id, d.run_id, d.tool_call_id,
       d.tool_name, d.kind, d.approved, $2, d.actor_id, d.actor_role, d.fingerprint, d.edited_fingerprint,
       (SELECT encode(sha256(convert_to('{"editedArgs":null,"resumeData":null}', 'UTF8')), 'hex')), d.created_at), 'UTF8')), 'hex')
     WHERE d.id = $1`,
    [decisionId, reason],
  );
  const { rows } = await sql.query<{ t: string; id: string; seq: string; content_hash: string; prev_hash: string }>(
    `SELECT * FROM (SELECT 'decisions' AS t, id, chain_seq AS seq, content_hash, prev_hash FROM decisions WHERE chain_seq >= (SELECT chain_seq FROM decisions WHERE id = $1)
     UNION ALL SELECT 'audit_events', id, chain_seq, content_hash, prev_hash FROM audit_events WHERE chain_seq >= (SELECT chain_seq FROM decisions WHERE id = $1)) x
     ORDER BY seq`,
    [decisionId],
  );
  let prev = rows[0].prev_hash;
  for (const row of rows) {
    const hash = relink(prev, row.content_hash);
    await sql.query(`UPDATE ${row.t} SET prev_hash = $2, hash = $3 WHERE id = $1`, [row.id, prev, hash]);
    prev = hash;
  }
  await sql.query('UPDATE audit_chain_head SET hash = $1, prev_hash = $2 WHERE id = 1', [prev, rows.at(-1)!.prev_hash]);
  await sql.query(`UPDATE audit_chain_head SET prev_hash = (SELECT prev_hash FROM (SELECT prev_hash, chain_seq FROM decisions UNION ALL SELECT prev_hash, chain_seq FROM audit_events) x ORDER BY chain_seq DESC LIMIT 1) WHERE id = 1`);
  await sql.query('ALTER TABLE decisions ENABLE TRIGGER decisions_no_update_delete');
  await sql.query('ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete');
  await sql.query('COMMIT');
}

const text = async (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

describe('a keyed audit chain', { timeout: 120_000 }, () => {
  it('a decision changed and its chain recomputed without the key (sha256, or another key) is caught by every verifier', async () => {
    await sql.connect();
    const run = await agent.generate('/tool gated {"n":"k"}', { threadId: newThreadId(), resourceId: user.id });
    await agent.declineToolCallGenerate({ runId: run.runId, toolCallId: run.suspendedToolCalls[0].toolCallId, actor: user, reason: 'too risky' });
    const target = await db.decision.findFirstOrThrow({ where: { runId: run.runId } });
    await recordAuditEvent({ action: 'auth.signed_in', actor: user, target: { type: 'user', id: user.id } });
    // The link is the keyed one, not sha256 of the same bytes.
    expect(target.hash).toBe(linkHash(target.prevHash!, target.contentHash!));
    expect(target.hash).not.toBe(linkHash(target.prevHash!, target.contentHash!, null));
    expect(await verifyAuditChain(db)).toMatchObject({ ok: true });

    // Recomputed with the database's own sha256, as the unkeyed chain was.
    const sha = (prev: string, content: string) => createHash('sha256').update(Buffer.concat([Buffer.from(prev, 'hex'), Buffer.from(content, 'hex')])).digest('hex');
    await rewrite(target.id, 'approved after all', sha);
    const report = await verifyAuditChain(db);
    expect(report).toMatchObject({ ok: false, firstBroken: { table: 'decisions', id: target.id, seq: String(target.chainSeq), problem: 'not_keyed' } });
    expect(report.firstBroken!.message).toContain('not keyed with AUDIT_CHAIN_KEY');

    // The export of the recomputed chain fails offline too.
    const exported = verifyJsonLinesExport(await text(chainJsonLinesStream(db)));
    expect(exported.ok).toBe(false);
    expect(exported.problems).toContainEqual(expect.objectContaining({ id: target.id, problem: 'wrong_hash', message: expect.stringContaining('not keyed with AUDIT_CHAIN_KEY') }));

    // npm run audit:verify on this database: exit 1, naming the link.
    const root = path.resolve(import.meta.dirname, '../..');
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/audit-verify.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: databaseUrl(), NODE_ENV: 'test' } as NodeJS.ProcessEnv,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.stderr).toContain(`Audit chain BROKEN at link ${target.chainSeq}`);
    expect(cli.status).toBe(1);

    // Recomputed with a key of the owner's own: still caught.
    const other = (prev: string, content: string) => createHmac('sha256', 'x'.repeat(40)).update(Buffer.concat([Buffer.from(prev, 'hex'), Buffer.from(content, 'hex')])).digest('hex');
    await rewrite(target.id, 'approved after all', other);
    expect(await verifyAuditChain(db)).toMatchObject({ ok: false, firstBroken: { id: target.id, problem: 'wrong_hash' } });
  });

  it('links written before the key (AUDIT_CHAIN_LEGACY_LINKS) are checked as plain sha256; every later one must be keyed', async () => {
    const head = await db.auditChainHead.findUniqueOrThrow({ where: { id: 1 } });
    const saved = process.env.AUDIT_CHAIN_LEGACY_LINKS;
    try {
      // The chain of the test above is broken from a link on; as legacy links its recomputed sha256 links hold.
      process.env.AUDIT_CHAIN_LEGACY_LINKS = String(head.seq);
      const asLegacy = await verifyAuditChain(db);
      expect(asLegacy.firstBroken?.problem).not.toBe('not_keyed');
    } finally {
      if (saved === undefined) delete process.env.AUDIT_CHAIN_LEGACY_LINKS;
      else process.env.AUDIT_CHAIN_LEGACY_LINKS = saved;
    }
  });
});
