import { agentDecisionRoute } from '../../decision-route';

/** Declines a pending call (with an optional reason the model reads); the continuation's result as JSON. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('decline', 'generate');
