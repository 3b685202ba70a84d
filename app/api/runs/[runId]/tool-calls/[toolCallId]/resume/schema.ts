import { z } from 'zod';

/** POST /api/runs/{runId}/tool-calls/{toolCallId}/resume. Source: SPEC §7. */
export const resumeSchema = z.object({ resumeData: z.unknown() });
