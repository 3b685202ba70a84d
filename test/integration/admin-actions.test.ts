import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminActionsJsonLinesStream, adminActionsQuerySchema, listAdminActions } from '../../lib/audit/admin-actions';
import { describeAdminAction } from '../../lib/audit/describe-action';
import { verifyJsonLinesExport } from '../../lib/audit/export-verify';
import { seed } from '../../lib/demo/seed';
import { policiesSchema, type PolicyRuleInput } from '../../lib/policies/rules';
import { readPolicies, writePolicies } from '../../lib/policies/store';
import { createPrismaClient } from '../../lib/store/db';
import { databaseUrl } from '../support/harness';

/*
 * Policy edits are administrative actions in the audit hash chain: each saved version is a
 * `policy.changed` audit event written in the same transaction (who, when, the version ids, what
 * changed and both rule lists), listed and searchable by actor and action, and exportable.
 */

const db = createPrismaClient(databaseUrl(), { maxConnections: 3 });
const sql = new pg.Client({ connectionString: databaseUrl() });
const tag = Date.now().toString(36);
const rule = (amount: number): PolicyRuleInput => ({
  id: `refunds-over-${tag}`,
  name: `Refunds over ${amount}`,
  tool: 'issue-refund',
  condition: `args.amount > ${amount}`,
  outcome: { type: 'require', approvers: 'four-eyes' },
});
const parse = (rules: PolicyRuleInput[]) => policiesSchema.parse({ rules }).rules;
let original: Awaited<ReturnType<typeof readPolicies>>;

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  await seed(databaseUrl());
  await sql.connect();
  original = await readPolicies(db);
});
afterAll(async () => {
  // Leave the rules as they were for other files.
  await writePolicies(db, { rules: original.rules, changedBy: 'admin-alex' });
  await sql.end();
  await db.$disconnect();
});

describe('policy edits in the audit chain', () => {
  it('each saved version is a policy.changed entry: who, the version ids, the rule changed and both rule lists', async () => {
    const v1 = (await writePolicies(db, { rules: parse([rule(100), ...original.rules]), changedBy: 'admin-alex', note: `first ${tag}` }))?.version;
    const v2 = (await writePolicies(db, { rules: parse([rule(150), ...original.rules]), changedBy: 'admin-alex', baseVersion: v1! }))?.version;
    expect(v2).toBe(v1! + 1);
    const event = await db.auditEvent.findFirstOrThrow({ where: { action: 'policy.changed', targetId: String(v2) } });
    expect(event).toMatchObject({ actorId: 'admin-alex', actorRole: 'admin', targetType: 'policy_version' });
    expect(event.chainSeq).not.toBeNull();
    expect(event.details).toMatchObject({
      fromVersion: v1,
      toVersion: v2,
      changed: [{ id: `refunds-over-${tag}`, name: 'Refunds over 150' }],
      added: [],
      removed: [],
      reordered: false,
      before: [expect.objectContaining({ condition: 'args.amount > 100' }), ...original.rules.map(() => expect.anything())],
      after: [expect.objectContaining({ condition: 'args.amount > 150' }), ...original.rules.map(() => expect.anything())],
    });
    const first = await db.auditEvent.findFirstOrThrow({ where: { action: 'policy.changed', targetId: String(v1) } });
    expect(first.details).toMatchObject({ note: `first ${tag}`, added: [{ id: `refunds-over-${tag}` }] });
    // A refused save (stale baseVersion) writes neither a version nor an audit entry.
    const before = await db.auditEvent.count({ where: { action: 'policy.changed' } });
    expect(await writePolicies(db, { rules: parse([rule(1)]), changedBy: 'admin-alex', baseVersion: v1! })).toBeNull();
    expect(await db.auditEvent.count({ where: { action: 'policy.changed' } })).toBe(before);
  });

  it('the version and its audit entry commit together: when the entry cannot be written, the version is not saved', async () => {
    const before = await readPolicies(db);
    await sql.query(`ALTER TABLE audit_events ADD CONSTRAINT test_no_policy_events CHECK (action <> 'policy.changed') NOT VALID`);
    try {
      await expect(writePolicies(db, { rules: parse([rule(999)]), changedBy: 'admin-alex' })).rejects.toThrow(/test_no_policy_events/);
    } finally {
      await sql.query('ALTER TABLE audit_events DROP CONSTRAINT test_no_policy_events');
    }
    expect((await readPolicies(db)).version).toBe(before.version);
  });

  it('admin actions are found by the actor’s name or email and by action, say who changed which policy, and export with the chain', async () => {
    const version = (await writePolicies(db, { rules: parse([rule(200), ...original.rules]), changedBy: 'admin-alex' }))?.version;
    for (const actor of ['alex', 'ALEX@example.com']) {
      const page = await listAdminActions(adminActionsQuerySchema.parse({ actor, action: 'policy', limit: 5 }), db);
      const entry = page.entries.find((e) => e.targetId === String(version));
      expect(entry, actor).toBeDefined();
      expect(page.entries.every((e) => e.action === 'policy.changed' && e.actorId === 'admin-alex')).toBe(true);
      expect(describeAdminAction(entry!, { 'admin-alex': { name: 'Alex', email: 'alex@example.com' } })).toBe(
        `Alex changed the approval policies from version ${version! - 1} to ${version}: changed “Refunds over 200” (refunds-over-${tag})`,
      );
    }
    expect((await listAdminActions(adminActionsQuerySchema.parse({ actor: 'rita', action: 'policy.changed' }), db)).entries.filter((e) => e.targetId === String(version))).toEqual([]);
    expect((await listAdminActions(adminActionsQuerySchema.parse({ action: 'auth', limit: 50 }), db)).entries.every((e) => e.action.startsWith('auth.'))).toBe(true);
    expect(() => adminActionsQuerySchema.parse({ action: 'policy.deleted' })).toThrow();

    const jsonl = await new Response(adminActionsJsonLinesStream(adminActionsQuerySchema.parse({ format: 'jsonl', action: 'policy' }), db)).text();
    const report = verifyJsonLinesExport(jsonl);
    expect(report.ok, JSON.stringify(report.problems)).toBe(true);
    expect(report.entries).toBeGreaterThanOrEqual(3);
    const line = jsonl.split('\n').find((l) => l.includes(`"targetId":"${version}"`))!;
    const forged = jsonl.replace(line, line.replace('args.amount > 200', 'args.amount > 900'));
    expect(verifyJsonLinesExport(forged).problems).toEqual([expect.objectContaining({ problem: 'content_changed', id: JSON.parse(line).id })]);
  });
});
