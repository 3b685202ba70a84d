import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { approvalReason, POLICY_TIMEOUT_MS } from './policy';
import { createTool, type ApprovalPolicy } from './tool';

const tool = (requireApproval?: ApprovalPolicy<{ amount: number }>) =>
  createTool({ id: 't', description: 't', inputSchema: z.object({ amount: z.number() }), requireApproval, execute: () => 1 });

const no = () => false;
const yes = () => true;
const throwing = () => {
  throw new Error('boom');
};

describe('approvalReason: request policy, agent default and tool are OR-ed', () => {
  it('ORs request, agent default and tool; a tool function may only add approval', async () => {
    expect(await approvalReason({ tool: tool(), args: { amount: 1 }, requestContext: {} })).toBeNull();
    expect(await approvalReason({ tool: tool(true), args: { amount: 1 }, requestContext: {} })).toBe('tool');
    expect(await approvalReason({ tool: tool(() => false), args: { amount: 1 }, requestContext: {}, requestPolicy: true })).toBe('request');
    expect(await approvalReason({ tool: tool(), args: { amount: 1 }, requestContext: {}, agentDefault: true })).toBe('agent-default');
    expect(await approvalReason({ tool: tool(({ amount }) => amount > 100), args: { amount: 150 }, requestContext: {} })).toBe('tool');
    expect(await approvalReason({ tool: tool(({ amount }) => amount > 100), args: { amount: 50 }, requestContext: {} })).toBeNull();
  });

  it('needs no approval when every source says no', async () => {
    const args = { amount: 1 };
    expect(await approvalReason({ tool: tool(false), args, requestContext: {}, requestPolicy: false, agentDefault: false })).toBeNull();
    expect(await approvalReason({ tool: tool(no), args, requestContext: {}, requestPolicy: no, agentDefault: async () => false })).toBeNull();
  });

  it('a tool function saying no cannot take away approval the agent default or the request asks for', async () => {
    const args = { amount: 1 };
    expect(await approvalReason({ tool: tool(no), args, requestContext: {}, agentDefault: true })).toBe('agent-default');
    expect(await approvalReason({ tool: tool(false), args, requestContext: {}, agentDefault: yes })).toBe('agent-default');
    expect(await approvalReason({ tool: tool(false), args, requestContext: {}, requestPolicy: yes })).toBe('request');
  });

  it('a request or agent default saying no does not switch off a tool that asks', async () => {
    const args = { amount: 1 };
    expect(await approvalReason({ tool: tool(true), args, requestContext: {}, requestPolicy: false, agentDefault: false })).toBe('tool');
    expect(await approvalReason({ tool: tool(yes), args, requestContext: {}, requestPolicy: no, agentDefault: no })).toBe('tool');
  });

  it('names the first source that asks: request, then agent default, then tool', async () => {
    const args = { amount: 1 };
    expect(await approvalReason({ tool: tool(true), args, requestContext: {}, requestPolicy: true, agentDefault: true })).toBe('request');
    expect(await approvalReason({ tool: tool(true), args, requestContext: {}, requestPolicy: no, agentDefault: yes })).toBe('agent-default');
  });

  it('hands request-level functions the tool name, args and request context, and the tool function its args and context', async () => {
    const requestPolicy = vi.fn(() => false);
    const agentDefault = vi.fn(() => false);
    const toolPolicy = vi.fn(() => false);
    const args = { amount: 7 };
    const requestContext = { tenant: 'acme' };
    expect(await approvalReason({ tool: tool(toolPolicy), args, requestContext, requestPolicy, agentDefault })).toBeNull();
    expect(requestPolicy).toHaveBeenCalledExactlyOnceWith({ toolName: 't', args, requestContext });
    expect(agentDefault).toHaveBeenCalledExactlyOnceWith({ toolName: 't', args, requestContext });
    expect(toolPolicy).toHaveBeenCalledExactlyOnceWith(args, { requestContext });
  });
});

describe('approvalReason: a policy function that fails requires approval', () => {
  it('requires approval when a policy function throws or is async and says yes', async () => {
    expect(await approvalReason({ tool: tool(throwing), args: { amount: 1 }, requestContext: {} })).toBe('policy-error');
    expect(
      await approvalReason({ tool: tool(), args: { amount: 1 }, requestContext: { tenant: 'x' }, requestPolicy: async ({ requestContext }) => requestContext.tenant === 'x' }),
    ).toBe('request');
  });

  it('a throwing or rejecting function of any source gives policy-error', async () => {
    const args = { amount: 1 };
    expect(await approvalReason({ tool: tool(), args, requestContext: {}, requestPolicy: throwing })).toBe('policy-error');
    expect(await approvalReason({ tool: tool(), args, requestContext: {}, agentDefault: throwing })).toBe('policy-error');
    expect(await approvalReason({ tool: tool(() => Promise.reject(new Error('down'))), args, requestContext: {} })).toBe('policy-error');
  });

  describe('with fake timers', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** Starts `approvalReason` for a function of `where` that answers `verdict` after `delayMs` of fake time. */
    function decideAfter(delayMs: number, verdict: boolean, where: 'tool' | 'request') {
      vi.useFakeTimers();
      const slow = () => new Promise<boolean>((resolve) => setTimeout(() => resolve(verdict), delayMs));
      const state: { reason?: string | null } = {};
      void approvalReason({
        tool: tool(where === 'tool' ? slow : undefined),
        args: { amount: 1 },
        requestContext: {},
        requestPolicy: where === 'request' ? slow : undefined,
      }).then((value) => (state.reason = value));
      return state;
    }

    it('waits for a function answering within the limit, takes its answer and stops its own timer', async () => {
      for (const [verdict, expected] of [
        [false, null],
        [true, 'tool'],
      ] as const) {
        const state = decideAfter(POLICY_TIMEOUT_MS - 1, verdict, 'tool');
        await vi.advanceTimersByTimeAsync(POLICY_TIMEOUT_MS - 2);
        expect(state).toEqual({});
        await vi.advanceTimersByTimeAsync(1);
        expect(state).toEqual({ reason: expected });
        // The time limit's timer is cleared once the function answered.
        expect(vi.getTimerCount()).toBe(0);
        vi.useRealTimers();
      }
    });

    it('requires approval when a function takes longer than POLICY_TIMEOUT_MS, whatever it answers later', async () => {
      for (const where of ['tool', 'request'] as const) {
        const state = decideAfter(POLICY_TIMEOUT_MS + 1, false, where);
        await vi.advanceTimersByTimeAsync(POLICY_TIMEOUT_MS - 1);
        expect(state).toEqual({});
        await vi.advanceTimersByTimeAsync(1);
        expect(state).toEqual({ reason: 'policy-error' });
        await vi.advanceTimersByTimeAsync(1);
        expect(state).toEqual({ reason: 'policy-error' });
        vi.useRealTimers();
      }
    });

    it('gives up on a function that never answers after exactly POLICY_TIMEOUT_MS', async () => {
      vi.useFakeTimers();
      let settled: string | null | undefined;
      void approvalReason({ tool: tool(() => new Promise<boolean>(() => {})), args: { amount: 1 }, requestContext: {} }).then((value) => (settled = value));
      await vi.advanceTimersByTimeAsync(POLICY_TIMEOUT_MS - 1);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe('policy-error');
      expect(POLICY_TIMEOUT_MS).toBe(2_000);
    });
  });
});
