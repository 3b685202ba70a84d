import { MastraClient } from '@mastra/client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../../lib/demo/seed';
import type { PolicyRuleInput } from '../../lib/policies/rules';
import { databaseUrl, newThreadId } from '../support/harness';

/*
 * Every door a decision comes through — the runs route, the agents routes (the seed framework's
 * shapes), the chat body and send-tool-approval — called as Next calls them (a Request signed with an
 * API key, the path's params) against the real database and the app's own agents and data policies:
 *
 * - issue 30 item 1: an approval with edited arguments is decided against the rules of what it would
 *   run; an edit needing more than this one approval (a quorum, a reviewer other than the requester,
 *   a rule the call as shown did not match) is 409 EDIT_NEEDS_APPROVAL naming the rule, and nothing
 *   runs or is recorded;
 * - issue 30 item 2: the same body means the same at every door — edited `args` run the edit
 *   everywhere, an unknown field and a misspelt `reason` are 400 everywhere — and the seed
 *   framework's own client keeps working against the agents routes.
 */

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

let prisma: typeof import('../../lib/store/db').prisma;
let routes: Record<'generate' | 'approve' | 'approveGenerate' | 'decline' | 'declineGenerate' | 'resume' | 'sendToolApproval' | 'runsDecision' | 'chat', Handler>;

const tag = crypto.randomUUID().slice(0, 8);
const ada = { id: `edit-ada-${tag}`, role: 'user' as const };
const rita = { id: `edit-rita-${tag}`, role: 'reviewer' as const };
const secrets: Record<string, string> = {};

/** The rules these tests decide under (the app's data policy source reads them). */
const RULES: PolicyRuleInput[] = [
  { id: 'very-large-refunds', name: 'Very large refunds', tool: 'issue-refund', condition: 'args.amount > 1000', outcome: { type: 'require', approvers: { quorum: 2 } } },
  { id: 'large-refunds', name: 'Large refunds', tool: 'issue-refund', condition: 'args.amount > 100', outcome: { type: 'require', approvers: 'four-eyes' } },
  { id: 'record-9', name: 'Record 9 and up', tool: 'delete-record', condition: "args.id.startsWith('rec-9')", outcome: { type: 'require', approvers: 'four-eyes' } },
  { id: 'record-deletes', name: 'Record deletes', tool: 'delete-record', outcome: { type: 'require', approvers: 'requester' } },
];

beforeAll(async () => {
  process.env.DATABASE_URL = databaseUrl();
  process.env.BETTER_AUTH_URL = 'http://localhost:3000';
  process.env.AGENTS_RATE_LIMIT_PER_MINUTE = '100000';
  process.env.RUNS_RATE_LIMIT_PER_MINUTE = '100000';
  process.env.CHAT_RATE_LIMIT_PER_MINUTE = '100000';
  await seed(databaseUrl());
  ({ prisma } = await import('../../lib/store/db'));
  const { auth } = await import('../../lib/auth/auth');
  const { API_KEY_PREFIX } = await import('../../lib/auth/api-keys');
  const { policiesSchema } = await import('../../lib/policies/rules');
  const { writePolicies } = await import('../../lib/policies/store');
  const { appPolicySource } = await import('../../lib/policies/app-source');
  const agents = '../../app/api/agents/[agentId]';
  routes = {
    generate: (await import(`${agents}/generate/route`)).POST,
    approve: (await import(`${agents}/approve-tool-call/route`)).POST,
    approveGenerate: (await import(`${agents}/approve-tool-call-generate/route`)).POST,
    decline: (await import(`${agents}/decline-tool-call/route`)).POST,
    declineGenerate: (await import(`${agents}/decline-tool-call-generate/route`)).POST,
    resume: (await import(`${agents}/resume-stream/route`)).POST,
    sendToolApproval: (await import(`${agents}/send-tool-approval/route`)).POST,
    runsDecision: (await import('../../app/api/runs/[runId]/tool-calls/[toolCallId]/decision/route')).POST,
    chat: (await import('../../app/api/chat/route')).POST,
  } as unknown as typeof routes;
  for (const person of [ada, rita]) {
    await prisma().user.create({ data: { id: person.id, name: person.id, email: `${person.id}@example.com`, role: person.role, emailVerified: true } });
    const made = await auth().api.createApiKey({ body: { userId: person.id, name: 'edits', prefix: API_KEY_PREFIX } });
    await prisma().apikey.update({
      where: { id: made.id },
      data: { permissions: JSON.stringify({ scopes: ['agents:run', 'decisions:write'] }), rateLimitEnabled: false, rateLimitTimeWindow: 60_000, rateLimitMax: 10_000 },
    });
    secrets[person.id] = made.key;
  }
  const saved = await writePolicies(prisma(), { rules: policiesSchema.parse({ rules: RULES }).rules, changedBy: rita.id });
  expect(saved).not.toBeNull();
  appPolicySource().invalidate();
});

afterAll(async () => {
  await prisma().user.deleteMany({ where: { id: { in: [ada.id, rita.id] } } });
  await prisma().$disconnect();
});

/** Calls a route handler as Next would, as `who` (their key in the Authorization header). */
async function call(handler: Handler, who: { id: string }, path: string, params: Record<string, string>, body: unknown) {
  const request = new Request(`http://localhost:3000${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secrets[who.id]}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve(params) });
  // A stream's body is read to its end: the continuation has then finished.
  return { status: response.status, text: await response.text() };
}

/** Starts a run as Ada through the agents generate route; returns the call that waits. */
async function waitingCall(message: string, options: { requireToolApproval?: boolean } = {}) {
  const threadId = newThreadId();
  const started = await call(routes.generate, ada, '/api/agents/ops-agent/generate', { agentId: 'ops-agent' }, { messages: message, threadId, resourceId: ada.id, ...options });
  expect(started.status, started.text).toBe(200);
  const row = await prisma().pendingToolCall.findFirstOrThrow({ where: { threadId, status: 'pending' } });
  return { threadId, runId: row.rootRunId, toolCallId: row.rootToolCallId, id: row.id, args: row.args };
}

/** The doors an approval (with `fields`) comes through, each as the person `who`. */
function approveAt(door: Door, who: { id: string }, target: Awaited<ReturnType<typeof waitingCall>>, fields: Record<string, unknown>) {
  const agent = { agentId: 'ops-agent' };
  switch (door) {
    case 'runs':
      return call(routes.runsDecision, who, `/api/runs/${target.runId}/tool-calls/${target.toolCallId}/decision`, { runId: target.runId, toolCallId: target.toolCallId }, { approved: true, ...fields });
    case 'approve-tool-call':
      return call(routes.approve, who, '/api/agents/ops-agent/approve-tool-call', agent, { runId: target.runId, toolCallId: target.toolCallId, ...fields });
    case 'approve-tool-call-generate':
      return call(routes.approveGenerate, who, '/api/agents/ops-agent/approve-tool-call-generate', agent, { runId: target.runId, toolCallId: target.toolCallId, ...fields });
    case 'chat':
      return call(routes.chat, who, '/api/chat', {}, { id: target.threadId, messages: [], decision: { runId: target.runId, toolCallId: target.toolCallId, approved: true, ...fields } });
    case 'send-tool-approval':
      return call(routes.sendToolApproval, who, '/api/agents/ops-agent/send-tool-approval', agent, { threadId: target.threadId, resourceId: ada.id, approved: true, ...fields });
  }
}

/** The same doors for a decline. */
function declineAt(door: Door, who: { id: string }, target: Awaited<ReturnType<typeof waitingCall>>, fields: Record<string, unknown>) {
  const agent = { agentId: 'ops-agent' };
  switch (door) {
    case 'runs':
      return call(routes.runsDecision, who, `/api/runs/${target.runId}/tool-calls/${target.toolCallId}/decision`, { runId: target.runId, toolCallId: target.toolCallId }, { approved: false, ...fields });
    case 'approve-tool-call':
      return call(routes.decline, who, '/api/agents/ops-agent/decline-tool-call', agent, { runId: target.runId, toolCallId: target.toolCallId, ...fields });
    case 'approve-tool-call-generate':
      return call(routes.declineGenerate, who, '/api/agents/ops-agent/decline-tool-call-generate', agent, { runId: target.runId, toolCallId: target.toolCallId, ...fields });
    case 'chat':
      return call(routes.chat, who, '/api/chat', {}, { id: target.threadId, messages: [], decision: { runId: target.runId, toolCallId: target.toolCallId, approved: false, ...fields } });
    case 'send-tool-approval':
      return call(routes.sendToolApproval, who, '/api/agents/ops-agent/send-tool-approval', agent, { threadId: target.threadId, resourceId: ada.id, approved: false, ...fields });
  }
}

type Door = 'runs' | 'approve-tool-call' | 'approve-tool-call-generate' | 'chat' | 'send-tool-approval';
const DOORS: Door[] = ['runs', 'approve-tool-call', 'approve-tool-call-generate', 'chat', 'send-tool-approval'];
/** The doors a reviewer decides another person's call through (the chat and send-tool-approval are the requester's own thread). */
const REVIEWER_DOORS: Door[] = ['runs', 'approve-tool-call', 'approve-tool-call-generate'];

/** The error body of a refused request. */
const errorOf = (answer: { text: string }) => (JSON.parse(answer.text) as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;

/** Nothing happened to the call: it waits with the arguments it was shown with, and no decision was recorded. */
async function expectUntouched(target: Awaited<ReturnType<typeof waitingCall>>, what: string) {
  const row = await prisma().pendingToolCall.findUniqueOrThrow({ where: { id: target.id } });
  expect(row.status, what).toBe('pending');
  expect(row.args, what).toEqual(target.args);
  expect(await prisma().decision.count({ where: { pendingCallId: target.id } }), what).toBe(0);
}

describe('an approval with edited arguments is decided by the rules of what it would run (issue 30 item 1)', () => {
  it('a reviewer’s edit of a four-eyes refund of 250 to 4900 needs a quorum of two: 409 EDIT_NEEDS_APPROVAL naming the rule at every door, nothing runs', async () => {
    for (const door of REVIEWER_DOORS) {
      const target = await waitingCall('/tool issue-refund {"orderId":"ord-1042","amount":250}');
      const answer = await approveAt(door, rita, target, { args: { orderId: 'ord-1042', amount: 4900 } });
      expect(answer.status, `${door}: ${answer.text}`).toBe(409);
      const error = errorOf(answer);
      expect(error, door).toMatchObject({ code: 'EDIT_NEEDS_APPROVAL', details: { needs: 'quorum', rule: { id: 'very-large-refunds', name: 'Very large refunds' } } });
      expect(error.message, door).toMatch(/2 different reviewers \(rule “Very large refunds”\)/);
      await expectUntouched(target, door);
      // The call as shown can still be decided: the reviewer declines, the model may ask again.
      expect((await declineAt(door, rita, target, { reason: 'ask for 250 or for a quorum' })).status, door).toBe(200);
    }
  });

  it('a requireToolApproval refund of 10 edited to 1150 needs a quorum: refused, nothing runs', async () => {
    for (const door of REVIEWER_DOORS) {
      const target = await waitingCall('/tool issue-refund {"orderId":"ord-1043","amount":10}', { requireToolApproval: true });
      const answer = await approveAt(door, rita, target, { args: { orderId: 'ord-1043', amount: 1150 } });
      expect(answer.status, `${door}: ${answer.text}`).toBe(409);
      expect(errorOf(answer), door).toMatchObject({ code: 'EDIT_NEEDS_APPROVAL', details: { needs: 'quorum', rule: { id: 'very-large-refunds' } } });
      await expectUntouched(target, door);
    }
  });

  it('the requester’s own delete of rec-1 edited to rec-9, which a rule makes four-eyes: refused at every door, rec-9 stays', async () => {
    for (const door of DOORS) {
      const target = await waitingCall('/tool delete-record {"id":"rec-1"}');
      const answer = await approveAt(door, ada, target, { args: { id: 'rec-9' } });
      expect(answer.status, `${door}: ${answer.text}`).toBe(409);
      const error = errorOf(answer);
      expect(error, door).toMatchObject({ code: 'EDIT_NEEDS_APPROVAL', details: { needs: 'reviewer', rule: { id: 'record-9', name: 'Record 9 and up' } } });
      expect(error.message, door).toMatch(/a reviewer other than the person who asked for it \(rule “Record 9 and up”\)/);
      await expectUntouched(target, door);
      expect(await prisma().record.count({ where: { id: { in: ['rec-1', 'rec-9'] } } }), door).toBe(2);
      expect((await declineAt(door, ada, target, { reason: 'not this one' })).status, door).toBe(200);
    }
  });

  it('a reviewer’s edit into a rule that makes the requester’s own call reviewer-only is refused; an edit within the rules runs the edit', async () => {
    // A reviewer is eligible for "Record 9 and up", but it is a rule the call as shown did not wait under.
    const other = await waitingCall('/tool delete-record {"id":"rec-2"}');
    const refused = await approveAt('runs', rita, other, { args: { id: 'rec-9' } });
    expect(refused.status, refused.text).toBe(409);
    expect(errorOf(refused)).toMatchObject({ code: 'EDIT_NEEDS_APPROVAL', details: { needs: 'rule', rule: { id: 'record-9' } } });
    await expectUntouched(other, 'reviewer, another rule');

    // Within the rules (250 → 120, still "Large refunds", a reviewer other than the requester): the edit runs.
    const refund = await waitingCall('/tool issue-refund {"orderId":"ord-2001","amount":250}');
    const approved = await approveAt('runs', rita, refund, { args: { orderId: 'ord-2001', amount: 120 } });
    expect(approved.status, approved.text).toBe(200);
    const decision = await prisma().decision.findFirstOrThrow({ where: { pendingCallId: refund.id } });
    expect(decision).toMatchObject({ kind: 'approval', approved: true, actorId: rita.id, editedArgs: { orderId: 'ord-2001', amount: 120 } });
    expect(approved.text).toMatch(/Refunded \$120 on ord-2001/);
  });
});

describe('every door takes the same decision body the same way (issue 30 item 2)', () => {
  it('edited args run the edit at every door', async () => {
    for (const door of DOORS) {
      const target = await waitingCall(`/tool send-email {"to":"ann@example.com","subject":"draft ${door} ${tag}","body":"x"}`);
      const subject = `edited ${door} ${tag}`;
      const answer = await approveAt(door, ada, target, { args: { to: 'ann@example.com', subject, body: 'y' } });
      expect(answer.status, `${door}: ${answer.text}`).toBe(200);
      // send-tool-approval answers at once; its continuation runs in the background.
      await expect.poll(() => prisma().outboxEmail.count({ where: { subject } }), { timeout: 10_000 }).toBe(1);
      expect(await prisma().outboxEmail.count({ where: { subject: `draft ${door} ${tag}` } }), door).toBe(0);
    }
  });

  it('an unknown field, a misspelt reason, or a field of the other kind is 400 at every door, and the call still waits', async () => {
    for (const door of DOORS) {
      const target = await waitingCall(`/tool send-email {"to":"ann@example.com","subject":"strict ${door} ${tag}","body":"x"}`);
      const refusals = [
        ['unknown field on an approval', await approveAt(door, ada, target, { bogus: 1 })],
        ['unknown field on a decline', await declineAt(door, ada, target, { bogus: 1 })],
        ['misspelt reason', await declineAt(door, ada, target, { reasn: 'wrong address' })],
        ['a reason on an approval', await approveAt(door, ada, target, { reason: 'fine' })],
        ['edited args on a decline', await declineAt(door, ada, target, { args: { to: 'ann@example.com', subject: 's', body: 'b' } })],
      ] as const;
      for (const [what, answer] of refusals) {
        expect(answer.status, `${door}, ${what}: ${answer.text}`).toBe(400);
        expect(errorOf(answer).code, `${door}, ${what}`).toBe('BAD_REQUEST');
      }
      expect(errorOf(refusals[2][1]).message, door).toMatch(/reasn/);
      await expectUntouched(target, door);
    }
  });

  it('the seed framework’s client (@mastra/client-js) works against the agents routes, with the fields it sends of its own', async () => {
    const agentRoutes: Record<string, Handler> = {
      'approve-tool-call': routes.approve,
      'approve-tool-call-generate': routes.approveGenerate,
      'decline-tool-call': routes.decline,
      'decline-tool-call-generate': routes.declineGenerate,
      'resume-stream': routes.resume,
      'send-tool-approval': routes.sendToolApproval,
    };
    const sent: Record<string, unknown>[] = [];
    // The client's requests go to the route handlers in this process instead of over a socket.
    const fetchToRoutes = async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const match = url.pathname.match(/^\/api\/agents\/([^/]+)\/([^/]+)$/);
      const handler = match ? agentRoutes[match[2]] : undefined;
      if (!match || !handler) return new Response('not routed', { status: 599 });
      if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
      return handler(new Request(url, init), { params: Promise.resolve({ agentId: match[1] }) });
    };
    const client = new MastraClient({ baseUrl: 'http://localhost:3000', headers: { Authorization: `Bearer ${secrets[ada.id]}` }, retries: 0, fetch: fetchToRoutes as typeof fetch });
    const agent = client.getAgent('ops-agent');
    const requestContext = { tenant: 'acme' };

    const first = await waitingCall(`/tool send-email {"to":"ann@example.com","subject":"client approve ${tag}","body":"x"}`);
    const approved = await agent.approveToolCall({ runId: first.runId, toolCallId: first.toolCallId, model: 'openai/gpt-5', requestContext });
    expect(approved.status).toBe(200);
    await approved.text();
    expect(await prisma().outboxEmail.count({ where: { subject: `client approve ${tag}` } })).toBe(1);

    const second = await waitingCall(`/tool send-email {"to":"ann@example.com","subject":"client decline ${tag}","body":"x"}`);
    const declined = await agent.declineToolCall({ runId: second.runId, toolCallId: second.toolCallId, reason: 'not now', requestContext });
    expect(declined.status).toBe(200);
    await declined.text();
    expect(await prisma().pendingToolCall.findUniqueOrThrow({ where: { id: second.id } })).toMatchObject({ status: 'declined', decisionReason: 'not now' });

    const third = await waitingCall(`/tool send-email {"to":"ann@example.com","subject":"client generate ${tag}","body":"x"}`);
    const generated = await agent.approveToolCallGenerate({ runId: third.runId, toolCallId: third.toolCallId, requestContext });
    expect(generated).toMatchObject({ runId: third.runId, finishReason: 'stop' });

    const fourth = await waitingCall(`/tool send-email {"to":"ann@example.com","subject":"client decline generate ${tag}","body":"x"}`);
    expect(await agent.declineToolCallGenerate({ runId: fourth.runId, toolCallId: fourth.toolCallId, reason: 'no' })).toMatchObject({ runId: fourth.runId });

    const fifth = await waitingCall(`/tool send-email {"to":"ann@example.com","subject":"client by thread ${tag}","body":"x"}`);
    expect(await agent.sendToolApproval({ threadId: fifth.threadId, resourceId: ada.id, toolCallId: fifth.toolCallId, approved: true, requestContext: requestContext as never })).toMatchObject({
      accepted: true,
      runId: fifth.runId,
    });
    await expect.poll(() => prisma().outboxEmail.count({ where: { subject: `client by thread ${tag}` } }), { timeout: 10_000 }).toBe(1);

    const question = await waitingCall('/tool get-weather {}');
    const resumed = await agent.resumeStream({ city: 'Paris' }, { runId: question.runId, toolCallId: question.toolCallId, requestContext: requestContext as never });
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toMatch(/Weather in Paris/);

    // What it sent of its own accord is what the schemas name (model, requestContext): nothing else was needed.
    expect(sent.length).toBe(6);
    const own = new Set(sent.flatMap((body) => Object.keys(body)));
    for (const field of ['runId', 'toolCallId', 'reason', 'threadId', 'resourceId', 'approved', 'resumeData']) own.delete(field);
    expect([...own].sort()).toEqual(['model', 'requestContext']);
    expect(sent[0]).toMatchObject({ model: 'openai/gpt-5', requestContext });
  });
});
