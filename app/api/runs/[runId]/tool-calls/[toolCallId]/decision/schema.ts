import { z } from 'zod';

/**
 * POST /api/runs/{runId}/tool-calls/{toolCallId}/decision. Source: behaviour §7. Strict: a field it
 * does not know is refused (400), since a misspelt `reason` would otherwise decline without one.
 */
export const decisionSchema = z
  .object({
    approved: z.boolean(),
    reason: z.string().max(2_000).optional(),
    /** Edited arguments (approve only); validated against the tool's inputSchema. */
    args: z.unknown().optional(),
    fingerprint: z.string().max(128).optional(),
    /** The requester withdraws their own request: declined with reason "withdrawn by requester". */
    withdraw: z.literal(true).optional(),
  })
  .strict()
  .refine((body) => !(body.withdraw && body.approved), { message: 'A withdrawal declines the call: send approved: false.', path: ['withdraw'] });
