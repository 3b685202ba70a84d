import { agentDecisionRoute } from '../../decision-route';

/** Answers a suspended call with resumeData; the continuation's chunks as SSE. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('resume', 'stream');
