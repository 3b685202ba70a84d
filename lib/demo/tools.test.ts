import { describe, expect, it } from 'vitest';
import { describeCall } from '@/lib/agent/describe';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { createDataTools, createOpsTools } from './tools';

// describe() is pure: it never touches the client the tools are built with.
const tools = new Map([...createOpsTools({} as PrismaClient), ...createDataTools({} as PrismaClient)].map((tool) => [tool.id, tool]));
const title = (toolName: string, args: unknown) => describeCall(tools.get(toolName), args)?.title;

describe('demo tools describe their calls', () => {
  it('says what each call will do, in the tool’s own words', () => {
    expect(title('delete-record', { id: 'rec-42' })).toBe('Deletes record rec-42');
    expect(title('issue-refund', { orderId: 'ord-1', amount: 1250.5 })).toBe('Refunds $1,250.50 on order ord-1');
    expect(title('send-email', { to: 'ada@example.com', subject: 'Hi', body: 'x' })).toBe('Sends an email to ada@example.com: “Hi”');
    expect(title('lookup-customer', { customerId: 'c-9' })).toBe('Looks up customer c-9');
    expect(title('find-user', { userId: 'rita' })).toBe('Looks up user rita');
    expect(title('get-weather', { city: 'Oslo' })).toBe('Checks the weather in Oslo');
    expect(title('get-weather', {})).toBe('Checks the weather');
  });

  it('rates the risk from the args', () => {
    expect(describeCall(tools.get('issue-refund'), { orderId: 'ord-1', amount: 250 })?.risk).toBe('medium');
    expect(describeCall(tools.get('issue-refund'), { orderId: 'ord-1', amount: 5000 })?.risk).toBe('high');
    expect(describeCall(tools.get('delete-record'), { id: 'rec-1' })?.risk).toBe('high');
  });

  it('gives no description for args that fail the input schema (the UI falls back to a generic line)', () => {
    expect(describeCall(tools.get('issue-refund'), { orderId: 'ord-1', amount: -5 })).toBeNull();
    expect(describeCall(tools.get('delete-record'), { id: '' })).toBeNull();
    expect(describeCall(undefined, { id: 'x' })).toBeNull();
  });
});
