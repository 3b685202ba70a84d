import type { PolicyRuleInput } from '../policies/rules';

/**
 * The demo's approval policies, stored as version 1 on a fresh database (an admin changes them at
 * /admin/policies; `npm run db:seed` never overwrites a saved version). Together with the tools'
 * own rules in code they make the README's examples show each outcome.
 */
export const DEMO_POLICIES: PolicyRuleInput[] = [
  {
    id: 'very-large-refunds',
    name: 'Very large refunds',
    tool: 'issue-refund',
    condition: 'args.amount > 1000',
    outcome: { type: 'require', approvers: { quorum: 2 } },
  },
  {
    id: 'large-refunds',
    name: 'Large refunds',
    tool: 'issue-refund',
    condition: 'args.amount > 100',
    outcome: { type: 'require', approvers: 'four-eyes' },
  },
  {
    id: 'refunds-per-order',
    name: 'Refunds per order per day',
    tool: 'issue-refund',
    condition: 'history.total > 100',
    history: { sum: 'amount', by: 'args.orderId', windowHours: 24 },
    outcome: { type: 'require', approvers: 'four-eyes' },
  },
  {
    id: 'emails',
    name: 'Emails',
    tool: 'send-email',
    outcome: { type: 'classify', threshold: 0.7, approvers: 'requester' },
  },
  {
    id: 'record-deletes',
    name: 'Record deletes',
    tool: 'delete-record',
    outcome: { type: 'require', approvers: 'requester', deadline: { minutes: 10, action: 'decline', reason: 'Nobody decided within 10 minutes.' } },
  },
];
