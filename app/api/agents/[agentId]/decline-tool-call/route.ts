import { agentDecisionRoute } from '../../decision-route';

/** Declines a pending call (with an optional reason the model reads); the continuation's chunks as SSE. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('decline', 'stream');
