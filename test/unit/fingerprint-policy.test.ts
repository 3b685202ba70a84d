import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fingerprintToolCall } from '../../lib/agent/fingerprint';
import { approvalReason } from '../../lib/agent/policy';
import { createTool, type ApprovalPolicy } from '../../lib/agent/tool';

describe('fingerprintToolCall', () => {
  it('is the sha256 of the RFC 8785 canonical JSON, independent of key order', () => {
    const a = fingerprintToolCall({ toolName: 'issue-refund', args: { orderId: 'ord-1', amount: 250 } });
    const b = fingerprintToolCall({ toolName: 'issue-refund', args: { amount: 250, orderId: 'ord-1' } });
    expect(a).toBe(b);
    // RFC 8785: keys sorted, no whitespace.
    const canonical = '{"args":{"amount":250,"orderId":"ord-1"},"toolName":"issue-refund"}';
    expect(a).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(fingerprintToolCall({ toolName: 'issue-refund', args: { orderId: 'ord-1', amount: 251 } })).not.toBe(a);
  });
});

const tool = (requireApproval?: ApprovalPolicy<{ amount: number }>) =>
  createTool({ id: 't', description: 't', inputSchema: z.object({ amount: z.number() }), requireApproval, execute: () => 1 });

describe('approvalReason', () => {
  it('ORs request, agent default and tool; a tool function may only add approval', async () => {
    expect(await approvalReason({ tool: tool(), args: { amount: 1 }, requestContext: {} })).toBeNull();
    expect(await approvalReason({ tool: tool(true), args: { amount: 1 }, requestContext: {} })).toBe('tool');
    expect(await approvalReason({ tool: tool(() => false), args: { amount: 1 }, requestContext: {}, requestPolicy: true })).toBe('request');
    expect(await approvalReason({ tool: tool(), args: { amount: 1 }, requestContext: {}, agentDefault: true })).toBe('agent-default');
    expect(await approvalReason({ tool: tool(({ amount }) => amount > 100), args: { amount: 150 }, requestContext: {} })).toBe('tool');
    expect(await approvalReason({ tool: tool(({ amount }) => amount > 100), args: { amount: 50 }, requestContext: {} })).toBeNull();
  });

  it('requires approval when a policy function throws or is async and says yes', async () => {
    const throwing = () => {
      throw new Error('boom');
    };
    expect(await approvalReason({ tool: tool(throwing), args: { amount: 1 }, requestContext: {} })).toBe('policy-error');
    expect(
      await approvalReason({ tool: tool(), args: { amount: 1 }, requestContext: { tenant: 'x' }, requestPolicy: async ({ requestContext }) => requestContext.tenant === 'x' }),
    ).toBe('request');
  });
});
