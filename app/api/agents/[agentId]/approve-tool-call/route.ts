import { agentDecisionRoute } from '../../decision-route';
import { otherMethods } from '@/lib/http/methods';

/** Approves a pending call; the continuation's chunks as SSE. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('approve', 'stream');

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
