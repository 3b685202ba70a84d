import { z } from 'zod';

/** POST /api/runs/{runId}/tool-calls/{toolCallId}/resume. Source: behaviour §7. Strict, as the decision body. */
export const resumeSchema = z.object({ resumeData: z.unknown() }).strict();
