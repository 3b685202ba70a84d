import { agentDecisionRoute } from '../../decision-route';
import { otherMethods } from '@/lib/http/methods';

/** Declines a pending call (with an optional reason the model reads); the continuation's chunks as SSE. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('decline', 'stream');

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
