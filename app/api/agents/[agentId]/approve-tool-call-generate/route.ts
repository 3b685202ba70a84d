import { agentDecisionRoute } from '../../decision-route';

/** Approves a pending call; the continuation's result as JSON. Accepts Idempotency-Key. */
export const POST = agentDecisionRoute('approve', 'generate');
