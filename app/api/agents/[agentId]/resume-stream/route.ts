import { agentDecisionRoute } from '../../decision-route';
import { otherMethods } from '@/lib/http/methods';

/** Answers a suspended call with resumeData; the continuation's chunks as SSE. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('resume', 'stream');

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
