import type { ModelMessage } from 'ai';
import type { Actor } from '@/lib/agent/tool';
import { z } from 'zod';
import { threadIdSchema } from '@/lib/chat/thread-id';
import { approvalFields, checkFlagDecision, declineFields, resumeFields, seedClientFields, seedSendToolApprovalFields } from '@/lib/runs/decision-body';

/**
 * Request bodies of the agents API. Same paths and shapes as the seed framework's server, so its
 * HTTP clients work unchanged, except that a thread id must be one the chat can open (THREAD_ID:
 * 1–100 letters, digits, - or _; the seed framework took any string). Source: behaviour §7 "Agents".
 */
const id = z.string().trim().min(1).max(200);
/** A tool call id; a sub-agent's call has a qualified id, one level per delegation (see lib/agent/call-id.ts). */
const toolCallId = z.string().trim().min(1).max(1_000);

/**
 * One input message. A `system` message is refused: stored in a thread it could never be replayed
 * (providers take the system prompt apart from the messages) and every later turn would fail; the
 * agent's own instructions are its system prompt.
 */
const modelMessage = z.object({ role: z.enum(['user', 'assistant', 'system']), content: z.string().max(8_000) });

export const streamBodySchema = z
  .object({
    messages: z.union([z.string().min(1).max(8_000), z.array(modelMessage).min(1).max(100)]),
    threadId: threadIdSchema.optional(),
    resourceId: id.optional(),
    memory: z.object({ thread: z.union([threadIdSchema, z.object({ id: threadIdSchema })]), resource: id }).optional(),
    requireToolApproval: z.boolean().optional(),
    autoResumeSuspendedTools: z.boolean().optional(),
    maxSteps: z.number().int().min(1).max(50).optional(),
    requestContext: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((body, ctx) => {
    if (typeof body.messages === 'string') return;
    body.messages.forEach((message, index) => {
      if (message.role === 'system') {
        ctx.addIssue({
          code: 'custom',
          path: ['messages', index, 'role'],
          message: 'system messages cannot be stored in a thread (the agent’s instructions are its system prompt); send user or assistant messages',
        });
      }
    });
  })
  .transform((body, ctx) => {
    const threadId = body.threadId ?? (typeof body.memory?.thread === 'string' ? body.memory.thread : body.memory?.thread.id);
    // Omitted: the caller's own id (streamOptions); given, it must be that id (assertThreadOwner).
    const resourceId = body.resourceId ?? body.memory?.resource;
    if (!threadId) {
      ctx.addIssue({ code: 'custom', message: 'threadId (or memory.thread) is required' });
      return z.NEVER;
    }
    return { ...body, threadId, resourceId };
  });

/*
 * The decision routes take the shared decision bodies (lib/runs/decision-body.ts), strict, plus the
 * fields the seed framework's client sends of its own accord (accepted and ignored). Edited `args`
 * on an approval and `withdraw` on a decline are this app's extensions of the seed framework's shapes.
 */
export const approveBodySchema = z.object({ runId: id, toolCallId: toolCallId.optional(), ...approvalFields, ...seedClientFields }).strict();

export const declineBodySchema = z.object({ runId: id, toolCallId: toolCallId.optional(), ...declineFields, ...seedClientFields }).strict();

export const resumeBodySchema = z.object({ runId: id, toolCallId: toolCallId.optional(), ...resumeFields, ...seedClientFields }).strict();

/** By thread alone: `approved` with the approval's or the decline's fields, or `resumeData` for a question. */
export const sendToolApprovalBodySchema = z
  .object({
    threadId: threadIdSchema,
    /** Omitted: the caller's own id; given, it must be that id. */
    resourceId: id.optional(),
    toolCallId: toolCallId.optional(),
    approved: z.boolean(),
    ...approvalFields,
    ...declineFields,
    resumeData: z.unknown().optional(),
    ...seedClientFields,
    ...seedSendToolApprovalFields,
  })
  .strict()
  .superRefine(checkFlagDecision);

/** `page` counts from 0; pagination applies only when both `page` and `perPage` are given. */
export const suspendedRunsQuerySchema = z.object({
  threadId: threadIdSchema.optional(),
  resourceId: id.optional(),
  fromDate: z.coerce.date().optional(),
  toDate: z.coerce.date().optional(),
  page: z.coerce.number().int().min(0).optional(),
  perPage: z.coerce.number().int().min(1).max(1_000).optional(),
});

export type StreamBody = z.infer<typeof streamBodySchema>;

/**
 * Whether a stream/generate request may answer a suspended call by itself
 * (`autoResumeSuspendedTools`: the body's flag, else the agent's default): such a request decides
 * like send-tool-approval, so an API key needs `decisions:write` for it (the routes check).
 */
export function autoResumes(body: StreamBody, agentDefault: boolean | undefined): boolean {
  return body.autoResumeSuspendedTools ?? agentDefault ?? false;
}

/**
 * The stream options of a stream/generate body.
 * @param requester the signed-in person: the run's requester, never taken from the body; also the
 *   run's resource when the body names none
 */
export function streamOptions(body: StreamBody, requester: Actor) {
  return {
    threadId: body.threadId,
    resourceId: body.resourceId ?? requester.id,
    requester,
    requireToolApproval: body.requireToolApproval,
    autoResumeSuspendedTools: body.autoResumeSuspendedTools,
    maxSteps: body.maxSteps,
    requestContext: body.requestContext,
  };
}

/** The runtime input of a stream/generate body: a string or model messages. */
export function streamInput(body: StreamBody): string | ModelMessage[] {
  return typeof body.messages === 'string' ? body.messages : body.messages.map((message) => ({ ...message }));
}
