import { z } from 'zod';
import { checkToolDeadline, type ToolDeadline } from './deadline';

/** Identity of whoever acts: an end user (`user`), a reviewer or an admin. */
export interface Actor {
  id: string;
  role: 'user' | 'reviewer' | 'admin';
}

/** Free-form request context passed to policies and tools (e.g. tenant, locale). */
export type RequestContext = Record<string, unknown>;

/**
 * Which argument values of a tool are sensitive: `true` (all of them) or the top-level field names.
 * Notifications sent outside the app (email) show such values masked; the inbox and audit, behind
 * sign-in, show them in full.
 */
export type Sensitivity = true | readonly string[];

/** Who may decide a call of this tool: the requester (or any reviewer), or only reviewers (four-eyes). */
export type Approvers = 'requester' | 'reviewer';

/** How much harm a call can do, as the tool judges it from its args (shown as a badge to deciders). */
export type Risk = 'low' | 'medium' | 'high';

/** What a call will do, in the tool's own words: `title` is one line, `summary` an optional sentence. */
export interface ToolDescription {
  title: string;
  summary?: string;
  risk?: Risk;
}

/** One fact a tool gives a decider about a call (e.g. label "Order total", value "$310.00"). */
export interface ContextField {
  label: string;
  value: string;
}

/** What a tool's `context` function gets besides the args: whose call it is. */
export interface ToolContextInput {
  threadId: string;
  resourceId: string;
  requestedBy: string;
}

export type ApprovalPolicy<ARGS> =
  | boolean
  | ((args: ARGS, context: { requestContext: RequestContext }) => boolean | Promise<boolean>);

/** What `execute` gets besides its input. */
export interface ToolExecutionContext<SUSPEND, RESUME> {
  agent: {
    /** Pauses this call until resumed; `return suspend(payload)` right after. Validated against `suspendSchema`. */
    suspend: (payload: SUSPEND) => SuspendSignal;
    /** The resume data this call was resumed with, validated against `resumeSchema`. */
    resumeData?: RESUME;
    /** What this call suspended with before it was resumed. */
    suspendPayload?: SUSPEND;
  };
  runId: string;
  toolCallId: string;
  threadId: string;
  resourceId: string;
  requestContext: RequestContext;
  abortSignal?: AbortSignal;
}

const SUSPEND = Symbol.for('countersign.suspend');

/** Marker returned by `suspend()`; the runtime turns it into a pending suspension. */
export interface SuspendSignal {
  readonly [SUSPEND]: true;
  readonly payload: unknown;
}

/** Whether a tool's return value is the marker of `suspend()` (any other value is its result). */
export function isSuspendSignal(value: unknown): value is SuspendSignal {
  return typeof value === 'object' && value !== null && SUSPEND in value;
}

/**
 * The marker `suspend(payload)` returns; the runtime stores `payload` as what the tool asks for.
 * @param payload the tool's question, JSON (checked against its `suspendSchema` by the runtime)
 */
export function makeSuspendSignal(payload: unknown): SuspendSignal {
  return { [SUSPEND]: true, payload };
}

export interface ToolConfig<
  IN extends z.ZodType,
  OUT extends z.ZodType,
  SUS extends z.ZodType,
  RES extends z.ZodType,
> {
  id: string;
  description: string;
  inputSchema: IN;
  outputSchema?: OUT;
  suspendSchema?: SUS;
  resumeSchema?: RES;
  requireApproval?: ApprovalPolicy<z.infer<IN>>;
  approvers?: Approvers;
  /** What happens when nobody decided a call of this tool in time (approvals only; see deadline.ts). */
  deadline?: ToolDeadline;
  /** Describes a call of this tool for the people deciding it (pure, synchronous; args already valid). */
  describe?: (args: z.infer<IN>) => ToolDescription;
  /** Business facts a decider needs beside the call (e.g. a refund's order total), read at review time. */
  context?: (args: z.infer<IN>, input: ToolContextInput) => Promise<ContextField[]> | ContextField[];
  /** Argument values that must not leave the app in notifications (emails): `true` for all, or the top-level field names. */
  sensitive?: Sensitivity;
  execute: (
    input: z.infer<IN>,
    context: ToolExecutionContext<z.infer<SUS>, z.infer<RES>>,
  ) => Promise<z.infer<OUT> | SuspendSignal> | z.infer<OUT> | SuspendSignal;
}

/** A tool as the runtime sees it (schemas erased to `z.ZodType`). */
export interface Tool {
  id: string;
  description: string;
  inputSchema: z.ZodType;
  outputSchema?: z.ZodType;
  suspendSchema?: z.ZodType;
  resumeSchema?: z.ZodType;
  requireApproval?: ApprovalPolicy<any>;
  approvers: Approvers;
  deadline?: ToolDeadline;
  describe?: (args: any) => ToolDescription;
  context?: (args: any, input: ToolContextInput) => Promise<ContextField[]> | ContextField[];
  sensitive?: Sensitivity;
  execute: (input: any, context: ToolExecutionContext<any, any>) => Promise<unknown> | unknown;
}

/**
 * Declares a tool the agent may call. Source: behaviour §1 "Tools".
 *
 * @param config.id unique tool name the model sees
 * @param config.inputSchema zod schema; a call whose args fail it never reaches a reviewer
 * @param config.requireApproval `true`, or a (possibly async) function of `(args, { requestContext })`
 *   that may only add approval (behaviour §2)
 * @param config.approvers `'requester'` (default) or `'reviewer'` (four-eyes)
 * @param config.deadline `{ afterMs, action: 'decline' | 'escalate', reason? }`: a call waiting for
 *   approval that nobody decided within `afterMs` is declined (the model reads `reason`, default
 *   "No reviewer decided within …") or escalated to admins with the deadline extended once
 * @param config.describe `(args) → { title, summary?, risk? }`: what the call does, for cards and the inbox
 * @param config.context `(args, { threadId, resourceId, requestedBy }) → [{ label, value }]`: facts a
 *   reviewer needs to decide (read when the call is reviewed, not stored)
 * @param config.sensitive argument values never sent out in notifications (`true` or field names)
 * @param config.execute runs once per approved call; may `return context.agent.suspend(payload)`
 * @returns the tool, to put in an agent's `tools`
 */
export function createTool<
  IN extends z.ZodType,
  OUT extends z.ZodType = z.ZodType,
  SUS extends z.ZodType = z.ZodType,
  RES extends z.ZodType = z.ZodType,
>(config: ToolConfig<IN, OUT, SUS, RES>): Tool {
  checkToolDeadline(config.id, config.deadline);
  return { ...config, approvers: config.approvers ?? 'requester' };
}
