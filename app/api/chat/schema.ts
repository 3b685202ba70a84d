import { z } from 'zod';
import { threadIdSchema } from '@/lib/chat/thread-id';
import { env } from '@/lib/env';
import { flagDecisionSchema, resumeFields } from '@/lib/runs/decision-body';

/** Requests to POST /api/chat per user and minute (CHAT_RATE_LIMIT_PER_MINUTE, default 30). */
export const chatRateLimit = () => ({ limit: env().CHAT_RATE_LIMIT_PER_MINUTE, windowMs: 60_000 });

const uiMessage = z.object({
  id: z.string().max(200).optional(),
  role: z.enum(['user', 'assistant', 'system']),
  // Only the last user message's text parts are read; decisions may carry a long assistant message.
  parts: z.array(z.looseObject({ type: z.string() })).max(5_000),
});

/** POST /api/chat. Source: behaviour §7 "Chat". */
export const chatRequestSchema = z
  .object({
    // A thread the chat page can open (letters, digits, - and _).
    id: threadIdSchema,
    messages: z.array(uiMessage).max(500).default([]),
    agentId: z.string().max(100).optional(),
    requireToolApproval: z.boolean().optional(),
    // The shared decision bodies (lib/runs/decision-body.ts), strict as at every other door.
    decision: flagDecisionSchema({ runId: z.string().min(1).max(100), toolCallId: z.string().min(1).max(1_000) }).optional(),
    resume: z.object({ runId: z.string().min(1).max(100), toolCallId: z.string().min(1).max(1_000), ...resumeFields }).strict().optional(),
  })
  .refine((body) => !(body.decision && body.resume), { message: 'Send either a decision or a resume, not both.' });

export type ChatRequest = z.infer<typeof chatRequestSchema>;
