import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_DELAY_MS, retryDelayMs, signatureHeader, webhookBody } from './deliver';

const secretA = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const secretB = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;

describe('webhook delivery', () => {
  it('waits base · 2^(retry-1) before each retry, at most 6 hours', () => {
    expect([1, 2, 3, 4].map((retry) => retryDelayMs(retry, 10_000))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(retryDelayMs(30, 10_000)).toBe(MAX_RETRY_DELAY_MS);
  });

  it('signs with every secret in use, each verifiable on its own (Standard Webhooks)', () => {
    const at = new Date();
    const body = '{"type":"call.pending"}';
    const header = signatureHeader({ id: 'msg_1', at, body, secrets: [secretA, secretB] });
    expect(header.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': header };
    for (const secret of [secretA, secretB]) expect(new Webhook(secret).verify(body, headers)).toEqual({ type: 'call.pending' });
    const other = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    expect(() => new Webhook(other).verify(body, headers)).toThrow();
    // A changed body or id fails.
    expect(() => new Webhook(secretA).verify('{"type":"call.decided"}', headers)).toThrow();
    expect(() => new Webhook(secretA).verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
  });

  it('masks the values of sensitive arguments in call events and adds no args to run events', () => {
    const createdAt = new Date('2026-11-30T12:00:00.000Z');
    const call = JSON.parse(webhookBody({ type: 'call.pending', data: { toolName: 'wire' }, args: { to: 'a', pin: '1234' }, createdAt }, () => ['pin']));
    expect(call).toEqual({ type: 'call.pending', timestamp: '2026-11-30T12:00:00.000Z', data: { toolName: 'wire', args: { to: 'a', pin: '•••' } } });
    const all = JSON.parse(webhookBody({ type: 'call.decided', data: { toolName: 'wire' }, args: { to: 'a' }, createdAt }, () => true));
    expect(all.data.args).toEqual({ to: '•••' });
    const run = JSON.parse(webhookBody({ type: 'run.finished', data: { runId: 'r' }, args: null, createdAt }, () => true));
    expect(run.data).toEqual({ runId: 'r' });
  });

  it("replaces a policy's reason by the rule's name for a tool with sensitive fields, and keeps it for others", () => {
    const createdAt = new Date('2026-11-30T12:00:00.000Z');
    const event = { type: 'call.pending', data: { toolName: 'wire', why: 'pin "1234" == "1234": reviewer required' }, args: { pin: '1234' }, createdAt };
    const whyOfCall = { policy: 'data-policy', ruleName: 'PIN wires', codeText: null, codeReason: null };
    const hidden = webhookBody({ ...event, whyOfCall }, () => ['pin']);
    expect(hidden).not.toContain('1234');
    expect(JSON.parse(hidden).data.why).toBe('the policy rule “PIN wires” (the inbox shows the values it matched)');
    expect(webhookBody({ ...event, whyOfCall: null }, () => true)).not.toContain('1234');
    expect(JSON.parse(webhookBody({ ...event, whyOfCall }, () => undefined)).data.why).toBe('pin "1234" == "1234": reviewer required');
  });
});
