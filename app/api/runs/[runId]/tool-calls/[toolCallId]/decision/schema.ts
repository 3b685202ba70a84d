import { flagDecisionSchema } from '@/lib/runs/decision-body';

/**
 * POST /api/runs/{runId}/tool-calls/{toolCallId}/decision. Source: behaviour §7. The shared decision
 * body (lib/runs/decision-body.ts) with the run and call in the path: `approved`, then the approval's
 * fields (`fingerprint`, edited `args`) or the decline's (`fingerprint`, `reason`, `withdraw`).
 * Strict: a field it does not know is refused (400), since a misspelt `reason` would otherwise
 * decline without one.
 */
export const decisionSchema = flagDecisionSchema({});
