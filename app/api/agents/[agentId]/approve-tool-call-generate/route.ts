import { agentDecisionRoute } from '../../decision-route';
import { otherMethods } from '@/lib/http/methods';

/** Approves a pending call; the continuation's result as JSON. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('approve', 'generate');

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
