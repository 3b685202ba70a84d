import { z } from 'zod';

/** POST /api/runs/{runId}/tool-calls/{toolCallId}/resume. Source: behaviour §7. */
export const resumeSchema = z.object({ resumeData: z.unknown() });
