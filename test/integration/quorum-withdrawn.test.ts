import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentChunk } from '../../lib/agent/chunks';
import { policiesSchema } from '../../lib/policies/rules';
import { PrismaPolicySource, readPolicies, writePolicies } from '../../lib/policies/store';
import { collect, createRuntime, databaseUrl, newThreadId, only } from '../support/harness';

/*
 * A quorum vote counts only while its reviewer can still decide the call (issue #30 item 8): when an
 * admin deactivates a reviewer, or makes them an end user, before the quorum fills, their vote
 * leaves the call (its `vote` decision stays in the audit), the call needs another reviewer's vote,
 * the card shows the new count and the inbox says whose vote no longer counts and why.
 */

const PASSWORD = 'correct horse battery';
const tag = crypto.randomUUID().slice(0, 8);
const ada = { id: 'user-ada', role: 'user' as const };
let rt: Awaited<ReturnType<typeof createRuntime>>;
let base: Awaited<ReturnType<typeof createRuntime>>;
let original: Awaited<ReturnType<typeof readPolicies>>;
let users: typeof import('../../lib/admin/users');
let inbox: typeof import('../../lib/inbox/queries');
let auth: typeof import('../../lib/auth/auth').auth;
let admin: { id: string; role: 'admin'; headers: Headers };

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  process.env.BETTER_AUTH_URL = 'http://localhost:3000';
  base = await createRuntime();
  rt = await createRuntime({ dataPolicy: new PrismaPolicySource(base.db, { maxAgeMs: 0 }) });
  users = await import('../../lib/admin/users');
  inbox = await import('../../lib/inbox/queries');
  ({ auth } = await import('../../lib/auth/auth'));
  original = await readPolicies(rt.db);
  const rules = policiesSchema.parse({
    rules: [{ id: `quorum-${tag}`, name: 'Two reviewers', tool: 'lookup-customer', condition: `args.customerId == "cus-${tag}"`, outcome: { type: 'require', approvers: { quorum: 2 } } }, ...original.rules],
  }).rules;
  await writePolicies(rt.db, { rules, changedBy: 'admin-alex' });
  // An admin with a session: deactivating goes through better-auth's admin plugin.
  const id = `quorumw-${tag}-admin`;
  await rt.db.user.create({ data: { id, name: 'Admin', email: `${id}@example.com`, role: 'admin', emailVerified: true } });
  const hash = await (await auth().$context).password.hash(PASSWORD);
  await rt.db.account.create({ data: { id: `${id}-credential`, accountId: id, providerId: 'credential', userId: id, password: hash } });
  const signedIn = await auth().api.signInEmail({ body: { email: `${id}@example.com`, password: PASSWORD }, asResponse: true });
  const cookie = signedIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  admin = { id, role: 'admin', headers: new Headers({ cookie, host: 'localhost:3000' }) };
});

afterAll(async () => {
  await writePolicies(rt.db, { rules: original.rules, changedBy: 'admin-alex' });
  await rt.close();
  await base.close();
});

async function reviewer(name: string) {
  const id = `quorumw-${tag}-${name}`;
  await rt.db.user.create({ data: { id, name, email: `${id}@example.com`, role: 'reviewer', emailVerified: true } });
  return { id, role: 'reviewer' as const, name };
}

/** A call of Ada's that needs two reviewers' approvals. */
async function quorumCall() {
  const run = await rt.agent.stream(`/tool lookup-customer {"customerId":"cus-${tag}"}`, { threadId: newThreadId(), resourceId: ada.id });
  const [approval] = only(await collect(run.fullStream), 'tool-call-approval');
  expect(approval.payload).toMatchObject({ quorum: 2 });
  return { runId: run.runId, toolCallId: approval.payload.toolCallId as string };
}

const row = (call: { runId: string; toolCallId: string }) => rt.db.pendingToolCall.findFirstOrThrow({ where: { rootRunId: call.runId, rootToolCallId: call.toolCallId } });

describe('a quorum vote whose reviewer can no longer decide', () => {
  for (const change of ['deactivated', 'made an end user'] as const) {
    it(`no longer counts once the reviewer is ${change}: the next approval is a vote, not the one that fills it; the inbox says so`, async () => {
      const rita = await reviewer(`rita-${change === 'deactivated' ? 'd' : 'u'}`);
      const sam = await reviewer(`sam-${change === 'deactivated' ? 'd' : 'u'}`);
      const tom = await reviewer(`tom-${change === 'deactivated' ? 'd' : 'u'}`);
      const call = await quorumCall();
      await collect((await rt.agent.approveToolCall({ ...call, actor: rita })).fullStream);
      expect((await row(call)).approvedBy).toEqual([rita.id]);

      await users.updateUser(admin, rita.id, change === 'deactivated' ? { active: false } : { role: 'user' }, admin.headers);
      const after = await row(call);
      expect(after.status).toBe('pending');
      expect(after.approvedBy).toEqual([]);
      // Rita's vote stays in the audit.
      expect(await rt.db.decision.count({ where: { pendingCallId: after.id, kind: 'vote', actorId: rita.id } })).toBe(1);
      // The requester's card shows the count it has now.
      const logged = (await rt.db.runEvent.findMany({ where: { runId: call.runId }, orderBy: { id: 'asc' } })).map((e) => e.chunk as unknown as AgentChunk);
      expect(only(logged, 'tool-call-approval').at(-1)!.payload).toMatchObject({ approvals: 0, approvedBy: [] });

      const item = await inbox.getInboxItem(after.id, rt.db);
      expect(item).toMatchObject({ approvedBy: [], withdrawnVotes: [{ userId: rita.id, reason: change === 'deactivated' ? 'deactivated' : 'no longer a reviewer' }] });

      // Sam's approval is now one vote of two, not the one that fills the quorum: the tool has not run.
      const samVote = await collect((await rt.agent.approveToolCall({ ...call, actor: sam })).fullStream);
      expect(only(samVote, 'tool-call-resumed')).toHaveLength(0);
      expect(only(samVote, 'tool-call-approval')[0].payload).toMatchObject({ approvals: 1, approvedBy: [sam.id] });
      const tomVote = await collect((await rt.agent.approveToolCall({ ...call, actor: tom })).fullStream);
      expect(only(tomVote, 'tool-call-resumed')).toHaveLength(1);
      expect((await row(call)).approvedBy).toEqual([sam.id, tom.id]);
    });
  }

  it('a reviewer who keeps deciding rights keeps their vote (a role change from reviewer to admin)', async () => {
    const una = await reviewer('una');
    const call = await quorumCall();
    await collect((await rt.agent.approveToolCall({ ...call, actor: una })).fullStream);
    await users.updateUser(admin, una.id, { role: 'admin' }, admin.headers);
    expect((await row(call)).approvedBy).toEqual([una.id]);
    expect((await inbox.getInboxItem((await row(call)).id, rt.db))!.withdrawnVotes).toEqual([]);
  });
});
