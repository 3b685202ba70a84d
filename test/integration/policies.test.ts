import { createHash } from 'node:crypto';
import { MockLanguageModelV4 } from 'ai/test';
import { decisionContent, type DecisionRow } from '../../lib/audit/chain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentChunk } from '../../lib/agent/chunks';
import { auditQuerySchema, listAudit } from '../../lib/audit/queries';
import { listInbox } from '../../lib/inbox/queries';
import { ScriptedDecisionModel } from '../../lib/models/scripted-decision';
import { createClassifier } from '../../lib/policies/classify';
import { policiesSchema, type PolicyRuleInput } from '../../lib/policies/rules';
import { PrismaPolicySource, readPolicies, writePolicies } from '../../lib/policies/store';
import { collect, createRuntime, databaseUrl, newThreadId, only } from '../support/harness';

const ada = { id: 'user-ada', role: 'user' as const };
const rita = { id: 'user-rita', role: 'reviewer' as const };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});
beforeAll(() => {
  process.env.DATABASE_URL = databaseUrl();
});

/** A runtime whose agent asks data policies from PostgreSQL (no cache: every call reads the rules in force). */
async function policyRuntime() {
  const base = await createRuntime();
  closers.push(base.close);
  const rt = await createRuntime({ dataPolicy: new PrismaPolicySource(base.db, { maxAgeMs: 0 }) });
  closers.push(rt.close);
  return rt;
}

async function setRules(db: Awaited<ReturnType<typeof createRuntime>>['db'], rules: PolicyRuleInput[]) {
  const parsed = policiesSchema.parse({ rules }).rules;
  const saved = await writePolicies(db, { rules: parsed, changedBy: 'user-alex' });
  expect(saved).not.toBeNull();
  return saved!.version;
}

const approvals = (chunks: AgentChunk[]) => only(chunks, 'tool-call-approval');
const refundLines = (orderId: string, amounts: number[]) => amounts.map((amount) => `/tool issue-refund {"orderId":"${orderId}","amount":${amount}}`).join('\n');

describe('data policies decide which calls wait, and the pending call records why', () => {
  it('a rule on a tool code lets run makes it wait for a reviewer; the pending call keeps the rule version and states the real rule', async () => {
    const rt = await policyRuntime();
    const version = await setRules(rt.db, [
      { id: 'vip-lookup', name: 'VIP look-ups', tool: 'lookup-*', condition: 'args.customerId == "cus-1"', outcome: { type: 'require', approvers: 'four-eyes' } },
    ]);
    const threadId = newThreadId();
    const run = await rt.agent.stream('/tool lookup-customer {"customerId":"cus-1"}', { threadId, resourceId: ada.id });
    const chunks = await collect(run.fullStream);
    const [approval] = approvals(chunks);
    expect(approval.payload).toMatchObject({
      toolName: 'lookup-customer',
      approvers: 'reviewer',
      policy: 'data-policy',
      why: 'customerId "cus-1" == "cus-1": reviewer required, not the requester',
    });
    const [row] = await rt.store.findOpenPendingCalls({ threadId });
    expect(row.policyVersion).toBe(version);
    expect(row.policyEvaluation).toMatchObject({ rule: { id: 'vip-lookup', version, condition: 'args.customerId == "cus-1"' }, code: null, approvers: 'reviewer' });

    // The inbox shows the same sentence; the requester cannot decide, a reviewer can, and the audit keeps it.
    const { items } = await listInbox({ status: 'pending', limit: 100 });
    expect(items.find((item) => item.toolCallId === approval.payload.toolCallId)).toMatchObject({ why: approval.payload.why, policyVersion: version });
    await expect(rt.agent.approveToolCall({ runId: run.runId, toolCallId: approval.payload.toolCallId, actor: ada })).rejects.toMatchObject({ code: 'FOUR_EYES' });
    const approved = await rt.agent.approveToolCall({ runId: run.runId, toolCallId: approval.payload.toolCallId, actor: rita });
    const after = await collect(approved.fullStream);
    expect(only(after, 'tool-call-resumed')[0].payload.why).toBe(approval.payload.why);
    const audit = await listAudit(auditQuerySchema.parse({ limit: 500 }));
    expect(audit.entries.find((entry) => entry.toolCallId === approval.payload.toolCallId)?.why).toBe(approval.payload.why);

    // Another customer matches no rule: it runs at once.
    const other = await collect((await rt.agent.stream('/tool lookup-customer {"customerId":"cus-2"}', { threadId: newThreadId(), resourceId: ada.id })).fullStream);
    expect(approvals(other)).toHaveLength(0);
    expect(only(other, 'tool-result')).toHaveLength(1);
  });

  it('allow in data cannot remove the approval code requires; the reason names the code rule', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, [{ id: 'let-deletes', name: 'Let deletes through', tool: 'delete-record', outcome: { type: 'allow' } }]);
    const chunks = await collect((await rt.agent.stream('delete record rec-42', { threadId: newThreadId(), resourceId: ada.id })).fullStream);
    const [approval] = approvals(chunks);
    expect(approval.payload).toMatchObject({ policy: 'tool', approvers: 'requester', why: 'delete-record always needs approval: the requester or a reviewer may decide' });
  });

  it('a data rule cannot loosen who decides: the tool is reviewer-only, a rule saying requester keeps the reviewer', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, [{ id: 'r', name: 'Refunds', tool: 'issue-refund', condition: 'args.amount > 100', outcome: { type: 'require', approvers: 'requester' } }]);
    const chunks = await collect((await rt.agent.stream('refund order ord-1042 for 250', { threadId: newThreadId(), resourceId: ada.id })).fullStream);
    expect(approvals(chunks)[0].payload).toMatchObject({ approvers: 'reviewer' });
    expect(approvals(chunks)[0].payload.why).toBe("amount 250 > 100; and issue-refund's own approval rule asked for these arguments: reviewer required, not the requester");
  });

  it('a stored condition that fails to evaluate requires a reviewer and records the error', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, [{ id: 'typo', name: 'Typo rule', tool: 'lookup-customer', condition: 'args.customer_id == "cus-9"', outcome: { type: 'require', approvers: 'requester' } }]);
    const threadId = newThreadId();
    const chunks = await collect((await rt.agent.stream('/tool lookup-customer {"customerId":"cus-2"}', { threadId, resourceId: ada.id })).fullStream);
    expect(approvals(chunks)[0].payload).toMatchObject({ policy: 'policy-error', approvers: 'reviewer' });
    const [row] = await rt.store.findOpenPendingCalls({ threadId });
    expect(row.policyEvaluation?.error).toMatch(/^condition failed: No such key: customer_id/);
    expect(row.policyEvaluation?.why).toMatch(/^rule "Typo rule" could not be evaluated \(condition failed: No such key: customer_id.*\), so approval is required: reviewer required, not the requester$/);

    // A rule list stored by hand that the schema refuses still fails closed instead of vanishing.
    await rt.db.$executeRaw`INSERT INTO policy_versions (version, rules, changed_by) SELECT max(version) + 1, '[{"id":"x","tool":"lookup-customer","outcome":{"type":"nonsense"}}]'::jsonb, 'sql' FROM policy_versions`;
    const broken = await collect((await rt.agent.stream('/tool lookup-customer {"customerId":"cus-2"}', { threadId: newThreadId(), resourceId: ada.id })).fullStream);
    expect(approvals(broken)[0].payload).toMatchObject({ policy: 'policy-error', approvers: 'reviewer' });
  });

  it('changes apply to new calls only: a waiting call keeps the version that paused it', async () => {
    const rt = await policyRuntime();
    const v1 = await setRules(rt.db, [{ id: 'all-lookups', name: 'All look-ups', tool: 'lookup-customer', outcome: { type: 'require', approvers: 'reviewer' } }]);
    const threadId = newThreadId();
    await collect((await rt.agent.stream('/tool lookup-customer {"customerId":"cus-3"}', { threadId, resourceId: ada.id })).fullStream);
    const v2 = await setRules(rt.db, []);
    expect(v2).toBe(v1 + 1);
    const [row] = await rt.store.findOpenPendingCalls({ threadId });
    expect(row).toMatchObject({ policyVersion: v1, status: 'pending' });
    const next = await collect((await rt.agent.stream('/tool lookup-customer {"customerId":"cus-3"}', { threadId: newThreadId(), resourceId: ada.id })).fullStream);
    expect(approvals(next)).toHaveLength(0);
    const stored = await readPolicies(rt.db);
    expect(stored).toMatchObject({ version: v2, rules: [], changedBy: 'user-alex' });
    const change = await rt.db.policyVersion.findUniqueOrThrow({ where: { version: v2 } });
    expect(change.previous).toMatchObject([{ id: 'all-lookups' }]);
    // A save based on an older version is refused.
    expect(await writePolicies(rt.db, { rules: [], changedBy: 'user-alex', baseVersion: v1 })).toBeNull();
  });
});

describe('saving checks a condition against the input of the tools it applies to (issue 30, item 9)', () => {
  it('PUT /api/policies refuses `args.amount > "100"` for issue-refund (a number field), naming the field; the editor checks the same', async () => {
    const { putPoliciesSchemaFor } = await import('../../app/api/policies/schema');
    const { appToolInputSchemas } = await import('../../lib/policies/app-tools');
    const { parseJson } = await import('../../lib/http/errors');
    const tools = appToolInputSchemas();
    expect(tools['issue-refund']).toMatchObject({ properties: { amount: { type: 'number' } } });
    const body = (condition: string) => JSON.stringify({ rules: [{ id: 'r', name: 'Refunds', tool: 'issue-refund', condition, outcome: { type: 'require', approvers: 'reviewer' } }] });
    let refused: unknown;
    try {
      parseJson(body('args.amount > "100"'), putPoliciesSchemaFor(tools));
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      details: [expect.objectContaining({ path: ['rules', 0, 'condition'], message: "args.amount is a number in issue-refund's input, but the condition compares it with a string" })],
    });
    expect(parseJson(body('args.amount > 100'), putPoliciesSchemaFor(tools)).rules[0].condition).toBe('args.amount > 100');
    const { DEMO_POLICIES } = await import('../../lib/demo/policies');
    expect(parseJson(JSON.stringify({ rules: DEMO_POLICIES }), putPoliciesSchemaFor(tools)).rules).toHaveLength(DEMO_POLICIES.length);
  });
});

describe('conditions evaluate within a budget (issue 30, item 7)', () => {
  it("a catastrophic matches pattern answers at once and the server's event loop keeps turning", async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, [{ id: 'odd-ids', name: 'Odd customer ids', tool: 'lookup-customer', condition: "args.customerId.matches('^(a+)+$')", outcome: { type: 'require', approvers: 'reviewer' } }]);
    // A timer that should tick every 10 ms: the longest gap is how long the event loop was blocked.
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    try {
      const chunks = await collect((await rt.agent.stream(`/tool lookup-customer {"customerId":"${'a'.repeat(31)}!"}`, { threadId: newThreadId(), resourceId: ada.id })).fullStream);
      expect(approvals(chunks)).toHaveLength(0);
      expect(only(chunks, 'tool-result')).toHaveLength(1);
      // Before: the whole process blocked for 10.8 s (and twice that per extra character).
      expect(longestGap).toBeLessThan(500);
    } finally {
      clearInterval(ticker);
    }
  });

  it('a stored rule that runs over its budget fails closed: the call waits for a reviewer, and the reason says so', async () => {
    const rt = await policyRuntime();
    // Saved before the limits on comprehensions (the schema for stored rules still reads it): 20^5 steps.
    await setRules(rt.db, [{
      id: 'nested', name: 'Nested look-ups', tool: 'lookup-customer', outcome: { type: 'require', approvers: 'requester' },
      condition: 'args.customerId.split("").all(a, args.customerId.split("").all(b, args.customerId.split("").all(c, args.customerId.split("").all(d, args.customerId.split("").all(e, a + b + c + d + e != "zzzzz")))))',
    }]);
    const threadId = newThreadId();
    const started = performance.now();
    const chunks = await collect((await rt.agent.stream('/tool lookup-customer {"customerId":"cus-12345678901234567"}', { threadId, resourceId: ada.id })).fullStream);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(approvals(chunks)[0].payload).toMatchObject({ policy: 'policy-error', approvers: 'reviewer' });
    expect(only(chunks, 'tool-result')).toHaveLength(0);
    const [row] = await rt.store.findOpenPendingCalls({ threadId });
    expect(row.policyEvaluation?.error).toBe('condition over its time budget: it did not finish within 100 ms');
    expect(row.policyEvaluation?.why).toBe(
      'rule "Nested look-ups" could not be evaluated (condition over its time budget: it did not finish within 100 ms), so approval is required: reviewer required, not the requester',
    );
  });
});

describe('saving the rules already in force', () => {
  it('changes nothing: the version in force, changed false, no new version, audit entry or note; the baseVersion rules come first', async () => {
    const rt = await policyRuntime();
    const input: PolicyRuleInput[] = [
      { id: 'big-refunds', name: 'Big refunds', tool: 'issue-refund', condition: 'args.amount > 500', outcome: { type: 'require', approvers: 'four-eyes' } },
      { id: 'lookups', name: 'Look-ups', tool: 'lookup-*', outcome: { type: 'allow' } },
    ];
    const version = await setRules(rt.db, input);
    const rules = policiesSchema.parse({ rules: input }).rules;
    const recorded = async () => [await rt.db.policyVersion.count(), await rt.db.auditEvent.count({ where: { action: 'policy.changed' } })];
    const before = await recorded();

    // Save clicked again (the editor sends the version the first save answered), and a client without baseVersion.
    expect(await writePolicies(rt.db, { rules, changedBy: 'user-alex', baseVersion: version, note: 'again' })).toEqual({ version, changed: false });
    expect(await writePolicies(rt.db, { rules, changedBy: 'user-alex' })).toEqual({ version, changed: false });
    // Compared as JSON values: the same rules with their fields in another order are the same rules.
    const shuffled = rules.map((rule) => Object.fromEntries(Object.entries(rule).reverse())) as typeof rules;
    expect(await writePolicies(rt.db, { rules: shuffled, changedBy: 'user-alex' })).toEqual({ version, changed: false });
    expect(await recorded()).toEqual(before);
    expect(await readPolicies(rt.db)).toMatchObject({ version, rules });
    expect((await rt.db.policyVersion.findUniqueOrThrow({ where: { version } })).note).toBeNull();

    // A base version other than the one in force is refused first, even with the rules in force
    // (null: the route answers 409 POLICY_CHANGED for an older one, 422 for one never saved).
    expect(await writePolicies(rt.db, { rules, changedBy: 'user-alex', baseVersion: version - 1 })).toBeNull();
    expect(await writePolicies(rt.db, { rules, changedBy: 'user-alex', baseVersion: version + 1 })).toBeNull();
    expect(await recorded()).toEqual(before);

    // Two identical saves at once (a double click) make one version; the other answers it unchanged.
    const next = policiesSchema.parse({ rules: input.slice(0, 1) }).rules;
    const both = await Promise.all([0, 1].map(() => writePolicies(rt.db, { rules: next, changedBy: 'user-alex' })));
    expect(both.map((saved) => saved?.version)).toEqual([version + 1, version + 1]);
    expect(both.map((saved) => saved?.changed).sort()).toEqual([false, true]);
    expect(await recorded()).toEqual([before[0] + 1, before[1] + 1]);
    // A real change is a new version again.
    expect(await writePolicies(rt.db, { rules, changedBy: 'user-alex', baseVersion: version + 1 })).toEqual({ version: version + 2, changed: true });
  });
});

describe('a rule\'s deadline', () => {
  it('sets the pending call\'s deadline columns the job queue acts on, in place of the tool\'s', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, [
      { id: 'deletes', name: 'Deletes', tool: 'delete-record', outcome: { type: 'require', approvers: 'requester', deadline: { minutes: 10, action: 'decline', reason: 'Nobody decided within 10 minutes.' } } },
    ]);
    const threadId = newThreadId();
    const before = Date.now();
    await collect((await rt.agent.stream('delete record rec-42', { threadId, resourceId: ada.id })).fullStream);
    const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { threadId, status: 'pending' } });
    expect(row).toMatchObject({ deadlineAction: 'decline', deadlineReason: 'Nobody decided within 10 minutes.' });
    const inMs = row.deadlineAt!.getTime() - before;
    expect(inMs).toBeGreaterThan(9 * 60_000);
    expect(inMs).toBeLessThan(11 * 60_000);
    expect(row.policyEvaluation).toMatchObject({ deadline: { minutes: 10, action: 'decline' } });
  });
});

describe('history conditions: a limit cannot be split into several calls', () => {
  const perChat = (limit: number): PolicyRuleInput[] => [{
    id: 'refunds-per-chat', name: 'Refunds per chat per day', tool: 'issue-refund', condition: `history.total > ${limit}`,
    history: { sum: 'amount', by: 'thread', windowHours: 24 }, outcome: { type: 'require', approvers: 'four-eyes' },
  }];

  it('three refunds of 100 in one message (the split the issue reported): one runs, the next waits, the identical third is not run again', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, perChat(100));
    const chunks = await collect((await rt.agent.stream(refundLines('ord-none', [100, 100, 100]), { threadId: newThreadId(), resourceId: ada.id })).fullStream);
    const waiting = approvals(chunks);
    expect(waiting.map((chunk) => chunk.payload.why)).toEqual([
      'amount total 200 (24 h, same chat, incl. this call) > 100: reviewer required, not the requester',
    ]);
    const results = only(chunks, 'tool-result').map((chunk) => (chunk.payload.result as { status?: string; message?: string }));
    expect(results).toHaveLength(2);
    expect(results.filter((result) => result.status === 'already-pending')).toHaveLength(1);
  });

  it('siblings of one step count each other: 60 and 30 run, the 20 that crosses 100 waits', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, perChat(100));
    const chunks = await collect((await rt.agent.stream(refundLines('ord-none', [60, 30, 20]), { threadId: newThreadId(), resourceId: ada.id })).fullStream);
    expect(approvals(chunks).map((chunk) => chunk.payload.args)).toEqual([{ orderId: 'ord-none', amount: 20 }]);
    expect(approvals(chunks)[0].payload.why).toBe('amount total 110 (24 h, same chat, incl. this call) > 100: reviewer required, not the requester');
    expect(only(chunks, 'tool-result')).toHaveLength(2);
  });

  it('a declined call no longer counts', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, perChat(100));
    const threadId = newThreadId();
    const first = await rt.agent.stream(refundLines('ord-none', [60, 50]), { threadId, resourceId: ada.id });
    const [waiting] = approvals(await collect(first.fullStream));
    const declined = await rt.agent.declineToolCall({ runId: first.runId, toolCallId: waiting.payload.toolCallId, actor: rita, reason: 'no' });
    await collect(declined.fullStream);
    // 60 ran; the declined 50 is not counted, so 40 more stays at 100 (a limit of more than 100).
    const next = await collect((await rt.agent.stream(refundLines('ord-none', [40]), { threadId, resourceId: ada.id })).fullStream);
    expect(approvals(next)).toHaveLength(0);
    const over = await collect((await rt.agent.stream(refundLines('ord-none', [1]), { threadId, resourceId: ada.id })).fullStream);
    expect(approvals(over)).toHaveLength(1);
  });

  it('an edit is counted by its edited args: a refused edit leaves the history as it was, an approved one replaces the call’s record (issue 30 item 1)', async () => {
    const rt = await policyRuntime();
    const orderId = `ord-${crypto.randomUUID().slice(0, 8)}`;
    await setRules(rt.db, [
      { id: 'huge', name: 'Huge refunds', tool: 'issue-refund', condition: 'args.amount > 1000', outcome: { type: 'require', approvers: { quorum: 2 } } },
      { id: 'large', name: 'Large refunds', tool: 'issue-refund', condition: 'args.amount > 200', outcome: { type: 'require', approvers: 'four-eyes' } },
      {
        id: 'refunds-per-order', name: 'Refunds per order per day', tool: 'issue-refund', condition: 'history.total > 100',
        history: { sum: 'amount', by: 'args.orderId', windowHours: 24 }, outcome: { type: 'require', approvers: 'four-eyes' },
      },
    ]);
    const run = await rt.agent.stream(refundLines(orderId, [250]), { threadId: newThreadId(), resourceId: ada.id });
    const [waiting] = approvals(await collect(run.fullStream));
    const toolCallId = waiting.payload.toolCallId;
    const ledger = () => rt.db.policyCallLedger.findMany({ where: { toolName: 'issue-refund', args: { path: ['orderId'], equals: orderId } }, select: { args: true } });
    expect(await ledger()).toEqual([{ args: { orderId, amount: 250 } }]);

    await expect(rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: rita, args: { orderId, amount: 5000 } })).rejects.toMatchObject({
      code: 'EDIT_NEEDS_APPROVAL',
      details: { needs: 'quorum', rule: { id: 'huge' } },
    });
    // Nothing of the refused edit was recorded: a later call of the order is not counted against 5000.
    expect(await ledger()).toEqual([{ args: { orderId, amount: 250 } }]);

    // 120 is over the per-order limit by itself (without the call's own 250): another rule than "Large
    // refunds", but asking no more (four-eyes, and Rita is not the requester): this approval decides it.
    await collect((await rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: rita, args: { orderId, amount: 120 } })).fullStream);
    expect(await ledger()).toEqual([{ args: { orderId, amount: 120 } }]);
  });

  it('per order, concurrent runs on two servers: exactly as many refunds run as fit under the limit', async () => {
    const a = await policyRuntime();
    const b = await policyRuntime();
    const orderId = `ord-${crypto.randomUUID().slice(0, 8)}`;
    await setRules(a.db, [{
      id: 'refunds-per-order', name: 'Refunds per order per day', tool: 'issue-refund', condition: 'history.total > 100',
      history: { sum: 'amount', by: 'args.orderId', windowHours: 24 }, outcome: { type: 'require', approvers: 'four-eyes' },
    }]);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).agent.stream(refundLines(orderId, [25]), { threadId: newThreadId(), resourceId: ada.id }).then((run) => collect(run.fullStream))),
    );
    const ran = results.filter((chunks) => approvals(chunks).length === 0);
    const waited = results.filter((chunks) => approvals(chunks).length === 1);
    expect(ran).toHaveLength(4);
    expect(waited).toHaveLength(4);
  });
});

describe('quorum: N distinct reviewers approve; one decline ends it', () => {
  const reviewers = [rita, { id: 'reviewer-sam', role: 'reviewer' as const }, { id: 'reviewer-tom', role: 'reviewer' as const }];
  const quorumRule = (n: number): PolicyRuleInput[] => [
    { id: 'vip', name: 'VIP look-ups', tool: 'lookup-customer', condition: 'args.customerId == "cus-1"', outcome: { type: 'require', approvers: { quorum: n } } },
  ];
  const toolResults = async (db: Awaited<ReturnType<typeof createRuntime>>['db'], runId: string) =>
    (await db.runEvent.findMany({ where: { runId }, orderBy: { id: 'asc' } })).map((row) => row.chunk as unknown as AgentChunk).filter((chunk) => chunk.type === 'tool-result');

  it('3 reviewers voting at once on two servers: one final outcome, the tool runs once; each vote is an audit entry; a late vote is told the outcome', async () => {
    const a = await policyRuntime();
    const b = await policyRuntime();
    await setRules(a.db, quorumRule(3));
    for (let round = 0; round < 3; round += 1) {
      const run = await a.agent.stream('/tool lookup-customer {"customerId":"cus-1"}', { threadId: newThreadId(), resourceId: ada.id });
      const [approval] = approvals(await collect(run.fullStream));
      expect(approval.payload).toMatchObject({ quorum: 3, approvers: 'reviewer' });
      expect(approval.payload.why).toBe('customerId "cus-1" == "cus-1": 3 different reviewers required, not the requester');
      const toolCallId = approval.payload.toolCallId;
      // The requester cannot vote.
      await expect(a.agent.approveToolCall({ runId: run.runId, toolCallId, actor: ada })).rejects.toMatchObject({ code: 'FOUR_EYES' });

      const streams = await Promise.all(
        reviewers.map((actor, i) => (i % 2 ? b : a).agent.approveToolCall({ runId: run.runId, toolCallId, actor }).then((result) => collect(result.fullStream))),
      );
      const continued = streams.filter((chunks) => only(chunks, 'tool-call-resumed').length === 1);
      const votes = streams.filter((chunks) => only(chunks, 'tool-call-resumed').length === 0);
      expect(continued).toHaveLength(1);
      expect(votes.map((chunks) => approvals(chunks)[0].payload.approvals).sort()).toEqual([1, 2]);
      expect(await toolResults(a.db, run.runId)).toHaveLength(1);

      const row = await a.db.pendingToolCall.findFirstOrThrow({ where: { rootRunId: run.runId, rootToolCallId: toolCallId } });
      expect(row.status).toBe('completed');
      expect([...row.approvedBy].sort()).toEqual(reviewers.map((r) => r.id).sort());
      const decisions = await a.db.decision.findMany({ where: { pendingCallId: row.id } });
      expect(decisions.map((d) => d.kind).sort()).toEqual(['approval', 'vote', 'vote']);
      // The audit's "Approved" filter lists the votes too (it shows them as "Approved (1 of 3)"); "Declined" none of them.
      const audited = async (kind: string) =>
        (await listAudit(auditQuerySchema.parse({ kind, limit: 500 }))).entries.filter((entry) => entry.toolCallId === toolCallId).map((entry) => entry.kind).sort();
      expect(await audited('approval')).toEqual(['approval', 'vote', 'vote']);
      expect(await audited('decline')).toEqual([]);
      // Each vote is a link of the audit hash chain, its content hash recomputable from the row.
      for (const decision of decisions) {
        expect(decision.chainSeq).not.toBeNull();
        expect(decision.contentHash).toBe(createHash('sha256').update(decisionContent(decision as DecisionRow)).digest('hex'));
      }
      // What the requester's chat reads: the card with "2 of 3" before the last vote.
      const logged = (await a.db.runEvent.findMany({ where: { runId: run.runId }, orderBy: { id: 'asc' } })).map((e) => e.chunk as unknown as AgentChunk);
      expect(only(logged, 'tool-call-approval').map((chunk) => chunk.payload.approvals ?? 0)).toEqual([0, 1, 2]);

      await expect(b.agent.approveToolCall({ runId: run.runId, toolCallId, actor: { id: 'reviewer-ann', role: 'reviewer' } })).rejects.toMatchObject({
        code: 'ALREADY_DECIDED',
        details: { outcome: 'approved' },
      });
    }
  });

  it('one decline ends it declined and the model reads the reason; a vote after that is told it was declined; a second vote by the same reviewer is refused', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, quorumRule(2));
    const run = await rt.agent.stream('/tool lookup-customer {"customerId":"cus-1"}', { threadId: newThreadId(), resourceId: ada.id });
    const [approval] = approvals(await collect(run.fullStream));
    const toolCallId = approval.payload.toolCallId;
    const first = await collect((await rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: rita })).fullStream);
    expect(approvals(first)[0].payload).toMatchObject({ approvals: 1, approvedBy: [rita.id], quorum: 2 });
    await expect(rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: rita })).rejects.toMatchObject({ code: 'ALREADY_VOTED', status: 409 });
    await expect(rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: rita, args: { customerId: 'cus-2' } })).rejects.toMatchObject({ code: 'QUORUM_NO_EDITS' });

    const declined = await collect((await rt.agent.declineToolCall({ runId: run.runId, toolCallId, actor: reviewers[1], reason: 'not for VIPs' })).fullStream);
    expect(only(declined, 'tool-output-denied')[0].payload.approval.reason).toBe('not for VIPs');
    expect(only(declined, 'tool-result')).toHaveLength(0);
    await expect(rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: reviewers[2] })).rejects.toMatchObject({
      code: 'ALREADY_DECIDED',
      details: { outcome: 'declined', reason: 'not for VIPs' },
    });
  });
  it('the vote that would fill a quorum and a decline at the same moment: whichever wins, every reviewer in approvedBy has a decision record, and a declined call lists only the votes cast before it', async () => {
    const rt = await policyRuntime();
    await setRules(rt.db, quorumRule(2));
    const [, sam, tom] = reviewers;
    // The store never records the filling vote on its own: only the approval adds it (before, a vote
    // filled the call in one statement and approved it in the next, and a decline in between left
    // the filling voter in approvedBy of a declined call, with no decision record for that vote).
    {
      const run = await rt.agent.stream('/tool lookup-customer {"customerId":"cus-1"}', { threadId: newThreadId(), resourceId: ada.id });
      const toolCallId = approvals(await collect(run.fullStream))[0].payload.toolCallId;
      await collect((await rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: rita })).fullStream);
      const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { rootRunId: run.runId, rootToolCallId: toolCallId } });
      const event = { type: 'tool-call-approval', runId: run.runId, from: 'AGENT', payload: {} } as unknown as AgentChunk;
      expect(await rt.store.castVote({ pendingCallId: row.id, rootRunId: run.runId, actor: sam, decisionId: crypto.randomUUID(), event })).toBeNull();
      await collect((await rt.agent.declineToolCall({ runId: run.runId, toolCallId, actor: tom, reason: 'no' })).fullStream);
      const after = await rt.db.pendingToolCall.findUniqueOrThrow({ where: { id: row.id } });
      expect([after.status, after.approvedBy]).toEqual(['declined', [rita.id]]);
    }
    for (let round = 0; round < 8; round += 1) {
      const run = await rt.agent.stream('/tool lookup-customer {"customerId":"cus-1"}', { threadId: newThreadId(), resourceId: ada.id });
      const toolCallId = approvals(await collect(run.fullStream))[0].payload.toolCallId;
      await collect((await rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: rita })).fullStream);
      // Sam's approval would fill it; Tom declines at the same moment. One wins; the other is told so.
      const settled = await Promise.allSettled([
        rt.agent.approveToolCall({ runId: run.runId, toolCallId, actor: sam }).then((result) => collect(result.fullStream)),
        rt.agent.declineToolCall({ runId: run.runId, toolCallId, actor: tom, reason: 'no' }).then((result) => collect(result.fullStream)),
      ]);
      expect(settled.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(settled.find((result) => result.status === 'rejected')).toMatchObject({ reason: { code: 'ALREADY_DECIDED' } });
      const row = await rt.db.pendingToolCall.findFirstOrThrow({ where: { rootRunId: run.runId, rootToolCallId: toolCallId } });
      const decisions = await rt.db.decision.findMany({ where: { pendingCallId: row.id }, orderBy: { createdAt: 'asc' } });
      const approvedBy = [...row.approvedBy];
      if (row.status === 'declined') {
        expect(approvedBy).toEqual([rita.id]);
        expect(decisions.map((d) => [d.kind, d.actorId])).toEqual([['vote', rita.id], ['decline', tom.id]]);
      } else {
        expect(row.status).toBe('completed');
        expect(approvedBy).toEqual([rita.id, sam.id]);
        expect(decisions.map((d) => [d.kind, d.actorId])).toEqual([['vote', rita.id], ['approval', sam.id]]);
      }
    }
  });
});

describe('classify: a decision model decides whether a call needs a person', () => {
  it('the scripted decision model scores send-email 0.9 ≥ 0.7: it waits, and score, rationale, model and latency are stored and stated; a reading tool scored 0.1 runs', async () => {
    const base = await createRuntime();
    closers.push(base.close);
    const classify = createClassifier({ model: new ScriptedDecisionModel() });
    const rt = await createRuntime({ dataPolicy: new PrismaPolicySource(base.db, { maxAgeMs: 0, classify }) });
    closers.push(rt.close);
    await setRules(rt.db, [
      { id: 'classified', name: 'Classified', tool: '{send-email,lookup-customer}', outcome: { type: 'classify', threshold: 0.7, approvers: 'four-eyes' } },
    ]);
    const threadId = newThreadId();
    const chunks = await collect((await rt.agent.stream('/tool send-email {"to":"a@b.co","subject":"Hi","body":"secret"}', { threadId, resourceId: ada.id })).fullStream);
    const [approval] = approvals(chunks);
    expect(approval.payload.approvers).toBe('reviewer');
    expect(approval.payload.why).toMatch(
      /^rule "Classified": classifier score 0\.90 ≥ 0\.7, "send" suggests a destructive or money-moving action \(classifier local\/scripted-decision, \d+ ms\); and send-email always needs approval: reviewer required, not the requester$/,
    );
    const [row] = await rt.store.findOpenPendingCalls({ threadId });
    expect(row.policyEvaluation?.classification).toMatchObject({ score: 0.9, threshold: 0.7, modelId: 'local/scripted-decision', rationale: expect.stringContaining('"send"') });
    expect(row.policyEvaluation?.classification?.latencyMs).toBeGreaterThanOrEqual(0);

    const lookup = await collect((await rt.agent.stream('/tool lookup-customer {"customerId":"cus-3"}', { threadId: newThreadId(), resourceId: ada.id })).fullStream);
    expect(approvals(lookup)).toHaveLength(0);
    expect(only(lookup, 'tool-result')).toHaveLength(1);
  });

  it('a rule asking for a rationale stores the language model’s structured answer; one sending values masks the tool’s sensitive fields', async () => {
    const base = await createRuntime();
    closers.push(base.close);
    const states: unknown[] = [];
    const decider = {
      specificationVersion: 'v4' as const, provider: 'test', modelId: 'decider', supportedQuestionTypes: ['boolean' as const],
      doDecide: async (options: { state: unknown }) => {
        states.push(options.state);
        return { answers: { requiresApproval: { type: 'boolean' as const, probability: 0.85 } }, warnings: [] };
      },
    };
    const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
    const writer = new MockLanguageModelV4({
      provider: 'test',
      modelId: 'writer',
      doGenerate: async () => ({ content: [{ type: 'text', text: '{"rationale":"It emails someone outside."}' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
    });
    const classify = createClassifier({ model: decider, languageModel: writer });
    const rt = await createRuntime({ dataPolicy: new PrismaPolicySource(base.db, { maxAgeMs: 0, classify }) });
    closers.push(rt.close);
    await setRules(rt.db, [{ id: 'mail-why', name: 'Mail', tool: 'send-email', outcome: { type: 'classify', threshold: 0.7, approvers: 'reviewer', rationale: true, sendValues: true } }]);
    const threadId = newThreadId();
    await collect((await rt.agent.stream('/tool send-email {"to":"carol@example.com","subject":"Hi","body":"the secret plan"}', { threadId, resourceId: ada.id })).fullStream);
    const [row] = await rt.store.findOpenPendingCalls({ threadId });
    expect(row.policyEvaluation?.classification).toMatchObject({ score: 0.85, rationale: 'It emails someone outside.', modelId: 'test/decider' });
    expect(row.policyEvaluation?.why).toContain('It emails someone outside.');
    // The values went out, except the body, which send-email marks sensitive.
    expect(JSON.stringify(states)).toContain('carol@example.com');
    expect(JSON.stringify(states)).not.toContain('secret plan');
    expect(JSON.stringify(writer.doGenerateCalls.map((c) => c.prompt))).not.toContain('secret plan');
    expect(JSON.stringify(writer.doGenerateCalls.map((c) => c.prompt))).toContain('carol@example.com');
  });

  it('a model that refuses makes the call wait for a reviewer, with the refusal recorded', async () => {
    const base = await createRuntime();
    closers.push(base.close);
    const refusing = {
      specificationVersion: 'v4' as const, provider: 'test', modelId: 'refuser', supportedQuestionTypes: ['boolean' as const],
      doDecide: async () => ({ answers: { requiresApproval: { type: 'refusal' as const } }, warnings: [] }),
    };
    const rt = await createRuntime({ dataPolicy: new PrismaPolicySource(base.db, { maxAgeMs: 0, classify: createClassifier({ model: refusing }) }) });
    closers.push(rt.close);
    await setRules(rt.db, [{ id: 'c', name: 'Look-ups', tool: 'lookup-customer', outcome: { type: 'classify', threshold: 0.7, approvers: 'requester' } }]);
    const threadId = newThreadId();
    const chunks = await collect((await rt.agent.stream('/tool lookup-customer {"customerId":"cus-3"}', { threadId, resourceId: ada.id })).fullStream);
    expect(approvals(chunks)[0].payload).toMatchObject({ approvers: 'requester' });
    const [row] = await rt.store.findOpenPendingCalls({ threadId });
    expect(row.policyEvaluation?.classification).toMatchObject({ score: null, error: 'the model refused to answer', modelId: 'test/refuser' });
  });
});
