import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../lib/agent/agent';
import { createTool } from '../../lib/agent/tool';
import { createTasks } from '../../lib/jobs/tasks';
import { startJobWorker, type JobWorker } from '../../lib/jobs/worker';
import { ScriptedModel } from '../../lib/models/scripted';
import { policiesSchema } from '../../lib/policies/rules';
import { PrismaPolicySource, writePolicies } from '../../lib/policies/store';
import { createPrismaClient } from '../../lib/store/db';
import { PrismaAgentStore } from '../../lib/store/prisma-store';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  resendWebhookDelivery,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from '../../lib/webhooks/endpoints';
import { databaseUrl, newThreadId } from '../support/harness';

/*
 * Signed webhooks end to end, minus the browser: a real HTTP receiver (node:http on an ephemeral
 * port) verifies every request with the `standardwebhooks` package, the events come from the
 * database triggers of real runs and decisions on PostgreSQL, and a graphile-worker runs the
 * delivery jobs in this process — with short timeouts and back-off, set through the task options.
 */

process.env.DATABASE_URL = databaseUrl();
// The receiver listens on 127.0.0.1, a private address: allowed here, refused in the tests that say so.
process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
const admin = { id: 'user-alex', role: 'admin' };
const user = { id: 'user-ada', role: 'user' as const };
const reviewer = { id: 'user-rita', role: 'reviewer' as const };
const TIMEOUT_MS = 3_000;

const tools = [
  createTool({
    id: 'wire-money',
    description: 'moves money',
    inputSchema: z.object({ to: z.string(), pin: z.string() }),
    requireApproval: true,
    approvers: 'reviewer',
    sensitive: ['pin'],
    execute: ({ to }) => ({ sent: to }),
  }),
  createTool({
    id: 'timed-out',
    description: 'declined by its deadline',
    inputSchema: z.object({ n: z.string() }),
    requireApproval: true,
    approvers: 'reviewer',
    deadline: { afterMs: 1_000, action: 'decline', reason: 'Too late.' },
    execute: ({ n }) => ({ ok: n }),
  }),
];

const db = createPrismaClient(databaseUrl(), { maxConnections: 6 });
const store = new PrismaAgentStore(db);
const agent = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'webhooks', model: new ScriptedModel(), tools, store });

/** One request the receiver got. */
interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  answered: number | null;
}

/** How the receiver answers a path: a status, or never. */
const behaviour = new Map<string, (request: Received, previous: Received[]) => number | 'never'>();
const received: Received[] = [];
const hanging = new Set<ServerResponse>();
/** Bytes the `/huge` path wrote of its endless answer, by webhook-id. */
const hugeWritten = new Map<string, number>();
const receiver = createServer((request: IncomingMessage, response: ServerResponse) => {
  if (request.url === '/huge') {
    // An answer without end: 64 KiB at a time for as long as the sender reads (the 1.5 GB answer).
    const id = String(request.headers['webhook-id']);
    received.push({ path: '/huge', headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])), body: '', answered: 200 });
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 120);
    let written = 0;
    const pump = () => {
      while (!response.destroyed && written < 4 * 1024 ** 3) {
        written += chunk.length;
        hugeWritten.set(id, written);
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
    };
    request.resume();
    request.on('end', pump);
    response.on('close', () => response.destroy());
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const headers = Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, String(value)]));
    const entry: Received = { path: request.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), answered: null };
    const previous = received.filter((other) => other.path === entry.path && other.headers['webhook-id'] === headers['webhook-id']);
    received.push(entry);
    const answer = (behaviour.get(entry.path) ?? (() => 200))(entry, previous);
    if (answer === 'never') {
      hanging.add(response);
      return;
    }
    entry.answered = answer;
    response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
  });
});
let base = '';
let worker: JobWorker | undefined;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  worker = await startJobWorker({
    databaseUrl: databaseUrl(),
    concurrency: 6,
    tasks: createTasks({
      db,
      store,
      agent: (id) => (id === agent.id ? agent : undefined),
      webhooks: { timeoutMs: TIMEOUT_MS, maxAttempts: 3, retryBaseMs: 200, sensitivity: (name) => tools.find((tool) => tool.id === name)?.sensitive },
    }),
  });
});

const endpoints: string[] = [];
afterAll(async () => {
  // No endpoint of this file may receive the events of later test files.
  await db.webhookEndpoint.deleteMany({ where: { id: { in: endpoints } } });
  for (const response of hanging) response.destroy();
  await worker?.stop();
  await new Promise((resolve) => receiver.close(resolve));
  await db.$disconnect();
});

/** Registers an endpoint at `path` of the receiver. */
async function endpoint(path: string, events: ('call.pending' | 'call.decided' | 'call.expired' | 'run.finished')[]) {
  const created = await createWebhookEndpoint(admin, { url: `${base}${path}`, description: path, events, enabled: true });
  endpoints.push(created.endpoint.id);
  return created;
}

const at = (path: string) => received.filter((request) => request.path === path);
const parsed = (request: Received) => JSON.parse(request.body) as { type: string; timestamp: string; data: Record<string, unknown> };

// Generous limits for a busy machine: every wait below ends as soon as its condition holds.
describe('webhooks', { timeout: 60_000 }, () => {
  it('signs each delivery (Standard Webhooks) and sends each event once per endpoint, also when the first attempt gets a 500', async () => {
    const all = await endpoint('/all', ['call.pending', 'call.decided', 'call.expired', 'run.finished']);
    const flaky = await endpoint('/flaky', ['call.pending', 'call.decided']);
    // The first attempt of every event fails with 500; the retry (same webhook-id) is taken.
    behaviour.set('/flaky', (_request, previous) => (previous.length === 0 ? 500 : 200));

    const paused = await agent.generate('/tool wire-money {"to":"acct-9","pin":"4321"}', { threadId: newThreadId(), resourceId: user.id });
    const toolCallId = paused.suspendedToolCalls[0].toolCallId;
    const call = await db.pendingToolCall.findFirstOrThrow({ where: { runId: paused.runId } });
    await agent.approveToolCallGenerate({ runId: paused.runId, toolCallId, actor: reviewer });

    // /all: call.pending, call.decided and run.finished, one request each (it answered 200 at once).
    await expect.poll(() => at('/all').filter((r) => parsed(r).data.runId === paused.runId).length, { timeout: 20_000 }).toBe(3);
    // /flaky: two requests per event (500, then 200), only the events it subscribed to.
    await expect.poll(() => at('/flaky').filter((r) => parsed(r).data.runId === paused.runId).length, { timeout: 20_000 }).toBe(4);

    for (const [path, secret] of [['/all', all.secret], ['/flaky', flaky.secret]] as const) {
      const requests = at(path).filter((r) => parsed(r).data.runId === paused.runId);
      for (const request of requests) {
        // The receiver's check, as the specification's library does it: throws unless signed with this secret.
        expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(JSON.parse(request.body));
        expect(request.headers['content-type']).toBe('application/json');
      }
      // Each event has one webhook-id, the same on its retry (so a receiver drops repeats), and one body.
      for (const type of new Set(requests.map((r) => parsed(r).type))) {
        const group = requests.filter((r) => parsed(r).type === type);
        expect(new Set(group.map((r) => r.headers['webhook-id'])).size).toBe(1);
        expect(new Set(group.map((r) => r.body)).size).toBe(1);
      }
      // Deduplicated by webhook-id, as a receiver does: each event exactly once.
      const accepted = requests.filter((r) => r.answered === 200);
      expect(accepted.map((r) => parsed(r).type).sort()).toEqual(path === '/all' ? ['call.decided', 'call.pending', 'run.finished'] : ['call.decided', 'call.pending']);
    }
    expect(at('/flaky').filter((r) => parsed(r).data.runId === paused.runId).map((r) => r.answered).sort()).toEqual([200, 200, 500, 500]);

    // The payload: { type, timestamp, data } with ids, tool, status and people; the sensitive pin masked.
    const pending = parsed(at('/all').find((r) => parsed(r).type === 'call.pending' && parsed(r).data.runId === paused.runId)!);
    expect(pending).toMatchObject({
      type: 'call.pending',
      data: { callId: call.id, runId: paused.runId, toolCallId, toolName: 'wire-money', kind: 'approval', status: 'pending', approvers: 'reviewer', args: { to: 'acct-9', pin: '•••' } },
    });
    expect(new Date(pending.timestamp).getTime()).not.toBeNaN();
    const decided = parsed(at('/all').find((r) => parsed(r).type === 'call.decided' && parsed(r).data.runId === paused.runId)!);
    expect(decided.data).toMatchObject({ callId: call.id, status: 'approved', approved: true, decidedBy: { id: reviewer.id, role: 'reviewer' }, args: { pin: '•••' } });
    expect(JSON.stringify(at('/all').map((r) => r.body))).not.toContain('4321');
    const finished = parsed(at('/all').find((r) => parsed(r).type === 'run.finished' && parsed(r).data.runId === paused.runId)!);
    expect(finished.data).toMatchObject({ runId: paused.runId, status: 'completed', agentId: 'ops-agent' });

    // The log: status, attempts, response time; every attempt kept. (The receiver has the request a
    // moment before the sender records its answer.)
    const mineOf = async () => (await listWebhookDeliveries({ endpointId: flaky.endpoint.id, limit: 50 })).deliveries.filter((d) => d.subject.runId === paused.runId);
    await expect.poll(async () => (await mineOf()).map((d) => d.status), { timeout: 20_000 }).toEqual(['succeeded', 'succeeded']);
    const mine = await mineOf();
    for (const delivery of mine) {
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      expect(delivery.lastDurationMs).toBeGreaterThanOrEqual(0);
      const attempts = await db.webhookAttempt.findMany({ where: { deliveryId: delivery.id }, orderBy: { attempt: 'asc' } });
      expect(attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
        [1, 500, 'HTTP 500'],
        [2, 200, null],
      ]);
    }
    expect((await listWebhookEndpoints()).find((e) => e.id === flaky.endpoint.id)?.deliveries).toMatchObject({ succeeded: 2, failed: 0 });
  });

  it('emits a state change once, even when it is written twice, and never for an endpoint that did not subscribe or is disabled', async () => {
    const only = await endpoint('/finished-only', ['run.finished']);
    const off = await endpoint('/disabled', ['call.pending', 'call.decided', 'run.finished']);
    await updateWebhookEndpoint(admin, off.endpoint.id, { enabled: false });
    const run = await agent.generate('/tool wire-money {"to":"acct-1","pin":"1"}', { threadId: newThreadId(), resourceId: user.id });
    await agent.declineToolCallGenerate({ runId: run.runId, toolCallId: run.suspendedToolCalls[0].toolCallId, reason: 'no', actor: reviewer });
    await expect.poll(() => at('/finished-only').filter((r) => parsed(r).data.runId === run.runId).length, { timeout: 20_000 }).toBe(1);
    // The run's end written again (a repeated write of the same state change): no second event, so
    // no second delivery — and a job is only ever added with a new delivery row.
    await db.$executeRaw`UPDATE runs SET status = 'running' WHERE id = ${run.runId}`;
    await db.$executeRaw`UPDATE runs SET status = 'completed' WHERE id = ${run.runId}`;
    expect(await db.webhookEvent.count({ where: { dedupeKey: `run.finished:${run.runId}` } })).toBe(1);
    expect(await db.webhookDelivery.count({ where: { endpointId: only.endpoint.id, event: { dedupeKey: `run.finished:${run.runId}` } } })).toBe(1);
    // Only run.finished reached it, and nothing reached the disabled endpoint.
    expect(at('/finished-only').filter((r) => parsed(r).data.runId === run.runId).map((r) => parsed(r).type)).toEqual(['run.finished']);
    expect(await db.webhookDelivery.count({ where: { endpointId: off.endpoint.id } })).toBe(0);
    expect(at('/disabled')).toHaveLength(0);
  });

  it('tells of a call declined by its deadline as call.expired, decided by the system', async () => {
    await endpoint('/expired', ['call.expired', 'call.decided']);
    const run = await agent.generate('/tool timed-out {"n":"x"}', { threadId: newThreadId(), resourceId: user.id });
    await expect.poll(() => at('/expired').filter((r) => parsed(r).data.runId === run.runId).length, { timeout: 20_000 }).toBe(1);
    const [request] = at('/expired').filter((r) => parsed(r).data.runId === run.runId);
    expect(parsed(request)).toMatchObject({ type: 'call.expired', data: { toolName: 'timed-out', status: 'expired', approved: false, reason: 'Too late.', decidedBy: { id: 'system', role: 'system' } } });
  });

  it('a receiver that never answers does not slow decisions down: the attempt times out in the job queue and is retried', async () => {
    const hang = await endpoint('/hang', ['call.pending', 'call.decided', 'run.finished']);
    behaviour.set('/hang', () => 'never');
    const runs = await Promise.all(
      Array.from({ length: 4 }, (_, i) => agent.generate(`/tool wire-money {"to":"h${i}","pin":"0"}`, { threadId: newThreadId(), resourceId: user.id })),
    );
    // The receiver holds the call.pending deliveries open by now.
    await expect.poll(() => at('/hang').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    const timings: number[] = [];
    for (const run of runs) {
      const started = performance.now();
      const result = await agent.approveToolCallGenerate({ runId: run.runId, toolCallId: run.suspendedToolCalls[0].toolCallId, actor: reviewer });
      timings.push(performance.now() - started);
      expect(result.finishReason).toBe('stop');
    }
    // A decision on the request path waiting for the receiver would take the whole timeout each.
    expect(Math.max(...timings)).toBeLessThan(TIMEOUT_MS * 0.66);
    await expect
      .poll(async () => (await listWebhookDeliveries({ endpointId: hang.endpoint.id, limit: 50 })).deliveries.filter((d) => d.attempts >= 1).length, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(4);
    const { deliveries } = await listWebhookDeliveries({ endpointId: hang.endpoint.id, limit: 50 });
    const timedOut = deliveries.find((d) => d.attempts >= 1)!;
    expect(timedOut.lastError).toBe(`No answer within ${TIMEOUT_MS} ms`);
    expect(timedOut.lastStatusCode).toBeNull();
    expect(timedOut.lastDurationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    await deleteWebhookEndpoint(admin, hang.endpoint.id);
    for (const response of hanging) response.destroy();
  });

  it('rotation signs with the new and the old secret during the grace period, then with the new one only; secrets stay out of lists and the audit', async () => {
    const created = await endpoint('/rotating', ['call.pending']);
    const rotated = await rotateWebhookSecret(admin, created.endpoint.id, { graceSeconds: 3_600 });
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.endpoint.previousSecretExpiresAt).not.toBeNull();
    const during = await agent.generate('/tool wire-money {"to":"r1","pin":"0"}', { threadId: newThreadId(), resourceId: user.id });
    await expect.poll(() => at('/rotating').filter((r) => parsed(r).data.runId === during.runId).length, { timeout: 20_000 }).toBe(1);
    const [first] = at('/rotating').filter((r) => parsed(r).data.runId === during.runId);
    expect(first.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated.secret).verify(first.body, first.headers)).not.toThrow();
    expect(() => new Webhook(created.secret).verify(first.body, first.headers)).not.toThrow();

    const ended = await rotateWebhookSecret(admin, created.endpoint.id, { graceSeconds: 0 });
    expect(ended.endpoint.previousSecretExpiresAt).toBeNull();
    const after = await agent.generate('/tool wire-money {"to":"r2","pin":"0"}', { threadId: newThreadId(), resourceId: user.id });
    await expect.poll(() => at('/rotating').filter((r) => parsed(r).data.runId === after.runId).length, { timeout: 20_000 }).toBe(1);
    const [second] = at('/rotating').filter((r) => parsed(r).data.runId === after.runId);
    expect(second.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(ended.secret).verify(second.body, second.headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(second.body, second.headers)).toThrow(/signature/i);
    expect(() => new Webhook(created.secret).verify(second.body, second.headers)).toThrow(/signature/i);

    const listed = JSON.stringify(await listWebhookEndpoints());
    const audit = await db.auditEvent.findMany({ where: { targetId: created.endpoint.id }, orderBy: { chainSeq: 'asc' } });
    expect(audit.map((event) => event.action)).toEqual(['webhook.created', 'webhook.secret_rotated', 'webhook.secret_rotated']);
    for (const text of [listed, JSON.stringify(audit.map((event) => event.details))]) {
      expect(text).not.toContain('whsec_');
      for (const secret of [created.secret, rotated.secret, ended.secret]) expect(text).not.toContain(secret.slice(6));
    }
  });

  it('a delivery that used its attempts is failed; resend sends it again with the same webhook-id and logs the attempt', async () => {
    let up = false;
    behaviour.set('/down', () => (up ? 200 : 503));
    const down = await endpoint('/down', ['call.pending']);
    const run = await agent.generate('/tool wire-money {"to":"d1","pin":"0"}', { threadId: newThreadId(), resourceId: user.id });
    const deliveryOf = async () => (await listWebhookDeliveries({ endpointId: down.endpoint.id, limit: 50 })).deliveries.find((d) => d.subject.runId === run.runId);
    // Three attempts (200 ms, then 400 ms apart), then failed.
    await expect.poll(async () => (await deliveryOf())?.status, { timeout: 20_000 }).toBe('failed');
    expect(await deliveryOf()).toMatchObject({ attempts: 3, lastStatusCode: 503, lastError: 'HTTP 503', nextAttemptAt: null });
    const firstId = at('/down')[0].headers['webhook-id'];

    up = true;
    const resent = await resendWebhookDelivery(admin, (await deliveryOf())!.id);
    expect(resent.status).toBe('pending');
    await expect.poll(async () => (await deliveryOf())?.status, { timeout: 20_000 }).toBe('succeeded');
    expect(await deliveryOf()).toMatchObject({ attempts: 4, lastStatusCode: 200 });
    const requests = at('/down').filter((r) => parsed(r).data.runId === run.runId);
    expect(requests.map((r) => r.answered)).toEqual([503, 503, 503, 200]);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([firstId]));
    expect(() => new Webhook(down.secret).verify(requests[3].body, requests[3].headers)).not.toThrow();
    const attempts = await db.webhookAttempt.findMany({ where: { deliveryId: resent.id }, orderBy: { attempt: 'asc' } });
    expect(attempts.map((a) => a.resend)).toEqual([false, false, false, true]);
    expect(await db.auditEvent.count({ where: { action: 'webhook.delivery_resent', targetId: resent.id } })).toBe(1);

    // A disabled endpoint's delivery is not resent.
    await updateWebhookEndpoint(admin, down.endpoint.id, { enabled: false });
    await expect(resendWebhookDelivery(admin, resent.id)).rejects.toMatchObject({ status: 409, code: 'ENDPOINT_DISABLED' });
    await expect(resendWebhookDelivery(admin, 'whd_missing')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('refuses URLs other than absolute http(s) without credentials, with 400 INVALID_WEBHOOK_URL and no row', async () => {
    const before = await db.webhookEndpoint.count();
    for (const url of ['ftp://example.com/hook', 'javascript:alert(1)', 'file:///etc/passwd', 'example.com/hook', 'https://user:pw@example.com/hook']) {
      await expect(createWebhookEndpoint(admin, { url, description: '', events: ['call.pending'], enabled: true })).rejects.toMatchObject({
        status: 400,
        code: 'INVALID_WEBHOOK_URL',
      });
    }
    const ok = await endpoint('/valid', ['call.pending']);
    await expect(updateWebhookEndpoint(admin, ok.endpoint.id, { url: 'gopher://example.com' })).rejects.toMatchObject({ status: 400, code: 'INVALID_WEBHOOK_URL' });
    await expect(updateWebhookEndpoint(admin, ok.endpoint.id, { enabled: true })).rejects.toMatchObject({ status: 409, code: 'NO_CHANGE' });
    await expect(updateWebhookEndpoint(admin, 'whe_missing', { enabled: false })).rejects.toMatchObject({ status: 404 });
    expect(await db.webhookEndpoint.count()).toBe(before + 1);
    expect((await db.webhookEndpoint.findUniqueOrThrow({ where: { id: ok.endpoint.id } })).url).toBe(`${base}/valid`);
  });

  it('reads at most a few KB of an answer and closes the connection: an endless 200 answer is a success within moments', async () => {
    const huge = await endpoint('/huge', ['call.pending']);
    const run = await agent.generate('/tool wire-money {"to":"big","pin":"0"}', { threadId: newThreadId(), resourceId: user.id });
    const deliveryOf = async () => (await listWebhookDeliveries({ endpointId: huge.endpoint.id, limit: 50 })).deliveries.find((d) => d.subject.runId === run.runId);
    await expect.poll(async () => (await deliveryOf())?.status, { timeout: 20_000 }).toBe('succeeded');
    const delivery = (await deliveryOf())!;
    // Read to its end (the old code), the answer ran into the timeout and failed the attempt.
    expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 200, lastError: null });
    expect(delivery.lastDurationMs).toBeLessThan(TIMEOUT_MS);
    // The receiver could push no more than what the sockets buffer before the sender hung up.
    await expect.poll(() => hugeWritten.get(delivery.eventId) ?? 0).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hugeWritten.get(delivery.eventId)).toBeLessThan(64 * 1024 ** 2);
    await deleteWebhookEndpoint(admin, huge.endpoint.id);
  });

  it('refuses loopback, private, link-local and unspecified destinations in every spelling at registration (400 WEBHOOK_PRIVATE_ADDRESS, no row)', async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    try {
      const before = await db.webhookEndpoint.count();
      const port = new URL(base).port;
      const refused = [
        `http://127.0.0.1:${port}/x`,
        `http://127.1:${port}/x`,
        `http://2130706433:${port}/x`,
        `http://0x7f000001:${port}/x`,
        `http://0177.0.0.1/x`,
        `http://[::1]:${port}/x`,
        'http://0.0.0.0/x',
        'http://[::]/x',
        'http://169.254.169.254/latest/meta-data/',
        'http://[::ffff:127.0.0.1]/x',
        'http://[::ffff:a9fe:a9fe]/x',
        'http://10.0.0.1/x',
        'http://172.16.5.4/x',
        'https://192.168.1.1/x',
        'http://100.64.0.1/x',
        'http://[fe80::1]/x',
        'http://[fc00::1]/x',
        `http://localhost:${port}/x`,
      ];
      for (const url of refused) {
        await expect(createWebhookEndpoint(admin, { url, description: '', events: ['call.pending'], enabled: true }), url).rejects.toMatchObject({
          status: 400,
          code: 'WEBHOOK_PRIVATE_ADDRESS',
        });
      }
      const ok = await createWebhookEndpoint(admin, { url: 'https://93.184.215.14/hooks', description: '', events: ['call.pending'], enabled: false });
      endpoints.push(ok.endpoint.id);
      await expect(updateWebhookEndpoint(admin, ok.endpoint.id, { url: 'http://[::ffff:10.0.0.1]/x' })).rejects.toMatchObject({ status: 400, code: 'WEBHOOK_PRIVATE_ADDRESS' });
      expect(await db.webhookEndpoint.count()).toBe(before + 1);
    } finally {
      process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
    }
  });

  it('checks the address connected to at delivery: a private address (by name or literal) registered earlier is refused, nothing reaches it, and the log says only why', async () => {
    const port = new URL(base).port;
    // Registered while allowed (as a name that resolved to a public address then would be).
    const byName = await createWebhookEndpoint(admin, { url: `http://localhost:${port}/rebound`, description: '', events: ['call.pending'], enabled: true });
    const byLiteral = await createWebhookEndpoint(admin, { url: `http://127.1:${port}/literal`, description: '', events: ['call.pending'], enabled: true });
    endpoints.push(byName.endpoint.id, byLiteral.endpoint.id);
    expect(byLiteral.endpoint.url).toBe(`http://127.0.0.1:${port}/literal`);
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    try {
      const run = await agent.generate('/tool wire-money {"to":"reb","pin":"0"}', { threadId: newThreadId(), resourceId: user.id });
      for (const created of [byName, byLiteral]) {
        const deliveryOf = async () => (await listWebhookDeliveries({ endpointId: created.endpoint.id, limit: 50 })).deliveries.find((d) => d.subject.runId === run.runId);
        await expect.poll(async () => (await deliveryOf())?.attempts ?? 0, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
        expect(await deliveryOf()).toMatchObject({ lastStatusCode: null, lastError: 'refused: private network address' });
      }
      expect(at('/rebound')).toHaveLength(0);
      expect(at('/literal')).toHaveLength(0);
    } finally {
      await deleteWebhookEndpoint(admin, byName.endpoint.id);
      await deleteWebhookEndpoint(admin, byLiteral.endpoint.id);
      process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
    }
  });

  it('tells admins why an attempt failed in coarse words, not what a port scan would learn', async () => {
    // A closed port on the same host: "Connection failed", not ECONNREFUSED and the address.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const gone = await endpoint('/unused', ['call.pending']);
    await updateWebhookEndpoint(admin, gone.endpoint.id, { url: `http://127.0.0.1:${closedPort}/x` });
    const run = await agent.generate('/tool wire-money {"to":"cls","pin":"0"}', { threadId: newThreadId(), resourceId: user.id });
    const deliveryOf = async () => (await listWebhookDeliveries({ endpointId: gone.endpoint.id, limit: 50 })).deliveries.find((d) => d.subject.runId === run.runId);
    await expect.poll(async () => (await deliveryOf())?.attempts ?? 0, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    expect(await deliveryOf()).toMatchObject({ lastStatusCode: null, lastError: 'Connection failed' });
    await deleteWebhookEndpoint(admin, gone.endpoint.id);
  });

  it("a call.pending of a tool with sensitive fields names the rule that asked in `why`, never the values it quotes", async () => {
    await endpoint('/why', ['call.pending']);
    const rules = policiesSchema.parse({
      rules: [{ id: 'pin-rule', name: 'Wires with a PIN', tool: 'wire-money', condition: 'args.pin == "80417"', outcome: { type: 'require', approvers: 'four-eyes' } }],
    }).rules;
    expect(await writePolicies(db, { rules, changedBy: admin.id })).not.toBeNull();
    const ruled = new Agent({ id: 'ops-agent', name: 'Ops', instructions: 'webhooks', model: new ScriptedModel(), tools, store, dataPolicy: new PrismaPolicySource(db, { maxAgeMs: 0 }) });
    const run = await ruled.generate('/tool wire-money {"to":"acct-7","pin":"80417"}', { threadId: newThreadId(), resourceId: user.id });
    const call = await db.pendingToolCall.findFirstOrThrow({ where: { runId: run.runId } });
    // The inbox's reason quotes the PIN (behind sign-in, where the values are shown anyway).
    expect(JSON.stringify(call.policyEvaluation)).toContain('80417');
    await expect.poll(() => at('/why').filter((r) => parsed(r).data.runId === run.runId).length, { timeout: 20_000 }).toBe(1);
    const [request] = at('/why').filter((r) => parsed(r).data.runId === run.runId);
    expect(request.body).not.toContain('80417');
    expect(parsed(request).data.why).toContain('the policy rule “Wires with a PIN”');
    expect(parsed(request).data.args).toEqual({ to: 'acct-7', pin: '•••' });
  });
});
