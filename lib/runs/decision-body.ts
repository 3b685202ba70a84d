import { z } from 'zod';

/**
 * What a decision may carry, one schema per kind, shared by every door that takes one (behaviour §7
 * "One decision, three doors"): the chat body's `decision` / `resume`, the runs routes
 * (`/api/runs/{runId}/tool-calls/{toolCallId}/decision|resume`) and the agents routes
 * (`approve-tool-call*`, `decline-tool-call*`, `resume-stream`, `send-tool-approval`). The doors
 * differ only in framing — where the run and call ids are (path or body), and whether the kind is the
 * route or an `approved` flag — never in what they accept: a field outside its kind's schema is
 * refused with 400 at every door (a misspelt `reason` would otherwise decline without one, and
 * edited `args` dropped by one door would run the original).
 */

const fingerprint = z.string().max(128).optional().describe('The fingerprint the decider saw; another one is refused (409 FINGERPRINT_MISMATCH).');
const reason = z.string().max(2_000).optional().describe('Why it was declined; the model reads it.');

/** An approval: the fingerprint seen and, optionally, edited arguments (validated by the runtime against the tool's inputSchema and its approval rules). */
export const approvalFields = {
  fingerprint,
  args: z.unknown().optional().describe('Edited arguments: the call runs with these instead (approval only).'),
};

/** A decline: the fingerprint seen, the reason the model reads, and `withdraw` (the requester takes back their own request: declined "withdrawn by requester"). */
export const declineFields = {
  fingerprint,
  reason,
  withdraw: z.literal(true).optional().describe('The requester withdraws their own request (declined "withdrawn by requester").'),
};

/** An answer to a tool's question (validated by the runtime against the tool's resumeSchema). */
export const resumeFields = { resumeData: z.unknown() };

/**
 * The fields the seed framework's client (`@mastra/client-js`) sends to the agents decision routes of
 * its own accord: accepted there and ignored, since they mean nothing here — `model` (a decision
 * continues with the agent's model), `requestContext` (the run keeps the context it started with) and
 * `format` (the route decides the answer's format). Only the agents routes take them.
 */
export const seedClientFields = {
  model: z.string().max(200).optional(),
  requestContext: z.record(z.string(), z.unknown()).optional(),
  format: z.string().max(50).optional(),
};

/** `send-tool-approval` only: the seed client's `messages` and `streamOptions`, also accepted and ignored. */
export const seedSendToolApprovalFields = {
  messages: z.array(z.unknown()).max(500).optional(),
  streamOptions: z.record(z.string(), z.unknown()).optional(),
};

/**
 * A parsed agents-route body without the seed client's fields (which mean nothing here), ready to
 * become a decision command.
 */
export function withoutSeedClientFields<Body extends { model?: unknown; requestContext?: unknown; format?: unknown; messages?: unknown; streamOptions?: unknown }>(
  body: Body,
): Omit<Body, 'model' | 'requestContext' | 'format' | 'messages' | 'streamOptions'> {
  const { model: _model, requestContext: _context, format: _format, messages: _messages, streamOptions: _options, ...fields } = body;
  return fields;
}

/**
 * The checks of a decision stated by an `approved` flag (runs route, chat body, send-tool-approval):
 * the approval's fields go with `approved: true` only, the decline's with `approved: false` only.
 */
export function checkFlagDecision(body: { approved: boolean; args?: unknown; reason?: string; withdraw?: true }, ctx: z.RefinementCtx) {
  if (body.approved) {
    if (body.reason !== undefined) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'A reason goes with a decline (approved: false); an approval has none.' });
    if (body.withdraw !== undefined) ctx.addIssue({ code: 'custom', path: ['withdraw'], message: 'A withdrawal declines the call: send approved: false.' });
  } else if (body.args !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['args'], message: 'Edited args go with an approval (approved: true); a decline runs nothing.' });
  }
}

/**
 * The body of a decision stated by an `approved` flag, with the call's address fields of its door
 * (`address`), strict: approve's fields with `approved: true`, decline's with `approved: false`.
 */
export function flagDecisionSchema<Shape extends z.ZodRawShape>(address: Shape) {
  return z
    .object({ ...address, approved: z.boolean(), ...approvalFields, ...declineFields })
    .strict()
    .superRefine((body, ctx) => checkFlagDecision(body as Parameters<typeof checkFlagDecision>[0], ctx));
}
