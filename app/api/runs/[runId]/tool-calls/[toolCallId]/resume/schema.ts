import { z } from 'zod';
import { resumeFields } from '@/lib/runs/decision-body';

/** POST /api/runs/{runId}/tool-calls/{toolCallId}/resume. Source: behaviour §7. Strict, as the decision body. */
export const resumeSchema = z.object(resumeFields).strict();
