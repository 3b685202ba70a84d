import { agentDecisionRoute } from '../../decision-route';

/** Approves a pending call; the continuation's chunks as SSE. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('approve', 'stream');
