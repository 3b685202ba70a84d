import type { UIMessageChunk } from 'ai';
import type { AgentChunk } from '@/lib/agent/chunks';
import type { ToolDescription } from '@/lib/agent/tool';

/**
 * How the server describes a call for the people deciding it (the tool's own `describe`), or null
 * when the tool gives no description (the UI then builds a generic line from the args).
 */
export type CallDescriber = (toolName: string, args: unknown) => ToolDescription | null;

const noDescription: CallDescriber = () => null;

/** `data` of the chat's approval card part (`data-tool-call-approval`). Source: behaviour §6. */
export interface ApprovalCardData {
  runId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
  fingerprint: string;
  approvers: 'requester' | 'reviewer';
  /** Why the call waits: the rule that paused it, with its values, and who may decide. */
  why?: string;
  /** Distinct reviewers whose approval is needed, when more than one. */
  quorum?: number;
  /** A quorum call's approvals so far, and by whom. */
  approvals?: number;
  approvedBy?: string[];
  resumeSchema: string;
  chain?: string[];
  /** The tool's own words for this call (title, summary, risk), when it describes itself. */
  description?: ToolDescription;
  resumed?: true;
  decision?: { approved?: boolean; reason?: string; by: string; at: string; editedFrom?: unknown };
  /**
   * While it waits: its deadline (ISO 8601) and what happens then; `escalatedAt`/`assignedToRole` once
   * the deadline escalated it. Added from the pending-call row when a thread is loaded.
   */
  deadline?: { at: string; action: 'decline' | 'escalate'; escalatedAt?: string; assignedToRole?: string };
}

/** `data` of the chat's question card part (`data-tool-call-suspended`). Source: behaviour §6. */
export interface SuspendedCardData {
  runId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
  suspendPayload: unknown;
  resumeSchema: string;
  chain?: string[];
  description?: ToolDescription;
  resumed?: true;
  decision?: { by: string; at: string; resumeData?: unknown };
}

/**
 * `data` of a run error shown in the conversation (`data-run-error`), e.g. after a crash or a
 * provider failure. `code` tells the kind (see the runtime's `error` chunk): MODEL_PROVIDER_CONFIG,
 * MODEL_PROVIDER_BUSY, MODEL_PROVIDER_DOWN, MODEL_PROVIDER_REJECTED, MODEL_REFUSED, RUN_FAILED,
 * RUN_INTERRUPTED, or RUN_STOPPED (someone pressed Stop; the chat shows "Stopped", not an error).
 */
export interface RunErrorData {
  message: string;
  code?: string;
}

/**
 * `data` of a reviewer's question about a pending call, shown in the requester's chat
 * (`data-reviewer-question`; from the call's activity, never sent to the model).
 */
export interface ReviewerQuestionData {
  /** The reviewer's user id, their display name and email (the chat knows no reviewers otherwise). */
  by: string;
  byName: string;
  byEmail: string | null;
  /** ISO 8601 */
  at: string;
  body: string;
  toolName: string;
  /** The call it is about, in the tool's words. */
  title: string | null;
  toolCallId: string;
}

export type CountersignDataTypes = {
  'reviewer-question': ReviewerQuestionData;
  'tool-call-approval': ApprovalCardData;
  'tool-call-suspended': SuspendedCardData;
  'run-error': RunErrorData;
};

/**
 * Maps one runtime chunk to AI SDK UI message stream chunks (what `useChat` reads).
 * Source: behaviour §6. `runId` is the top-level run the decision must be sent to. A card's part id and
 * `data.toolCallId` are the call's qualified id (see lib/agent/call-id.ts), so every pending call,
 * at any depth and any number per step, has a card of its own.
 *
 * @param describe the server's describer of calls (cards carry its `description`)
 * @returns zero or more UI chunks
 */
export function toUIChunks(chunk: AgentChunk, runId: string = chunk.runId, describe: CallDescriber = noDescription): UIMessageChunk[] {
  const described = (toolName: string, args: unknown) => {
    const description = describe(toolName, args);
    return description ? { description } : {};
  };
  switch (chunk.type) {
    case 'start':
      return [{ type: 'start', messageId: chunk.payload.messageId }];
    case 'step-start':
      return [{ type: 'start-step' }];
    case 'step-finish':
      return [{ type: 'finish-step' }];
    case 'text-start':
      return [{ type: 'text-start', id: chunk.payload.id }];
    case 'text-delta':
      return [{ type: 'text-delta', id: chunk.payload.id, delta: chunk.payload.text }];
    case 'text-end':
      return [{ type: 'text-end', id: chunk.payload.id }];
    case 'reasoning-start':
      return [{ type: 'reasoning-start', id: chunk.payload.id }];
    case 'reasoning-delta':
      return [{ type: 'reasoning-delta', id: chunk.payload.id, delta: chunk.payload.text }];
    case 'reasoning-end':
      return [{ type: 'reasoning-end', id: chunk.payload.id }];
    case 'tool-call':
      return [
        {
          type: 'tool-input-available',
          toolCallId: chunk.payload.toolCallId,
          toolName: chunk.payload.toolName,
          input: chunk.payload.args,
        },
      ];
    case 'tool-result':
      return [{ type: 'tool-output-available', toolCallId: chunk.payload.toolCallId, output: chunk.payload.result }];
    case 'tool-error':
      return [{ type: 'tool-output-error', toolCallId: chunk.payload.toolCallId, errorText: chunk.payload.error }];
    case 'tool-output-denied':
      return [{ type: 'tool-output-denied', toolCallId: chunk.payload.toolCallId }];
    case 'tool-call-approval': {
      const { toolCallId, toolName, args, fingerprint, approvers, resumeSchema, chain, why, quorum, approvals, approvedBy } = chunk.payload;
      const data: ApprovalCardData = {
        runId,
        toolCallId,
        toolName,
        args,
        fingerprint,
        approvers,
        resumeSchema,
        chain,
        ...(why ? { why } : {}),
        ...(quorum ? { quorum, approvals: approvals ?? 0, approvedBy: approvedBy ?? [] } : {}),
        ...described(toolName, args),
      };
      return [{ type: 'data-tool-call-approval', id: toolCallId, data }];
    }
    case 'tool-call-suspended': {
      const { toolCallId, toolName, args, suspendPayload, resumeSchema, chain } = chunk.payload;
      const data: SuspendedCardData = { runId, toolCallId, toolName, args, suspendPayload, resumeSchema, chain, ...described(toolName, args) };
      return [{ type: 'data-tool-call-suspended', id: toolCallId, data }];
    }
    case 'tool-call-resumed': {
      // The client replaces a data part wholesale, so the original payload is repeated in full.
      const p = chunk.payload;
      if (p.kind === 'approval') {
        const data: ApprovalCardData = {
          runId,
          toolCallId: p.toolCallId,
          toolName: p.toolName,
          args: p.args,
          fingerprint: p.fingerprint,
          approvers: p.approvers,
          ...(p.why ? { why: p.why } : {}),
          resumeSchema: p.resumeSchema,
          chain: p.chain,
          ...described(p.toolName, p.args),
          ...(p.quorum ? { quorum: p.quorum, approvals: p.approvedBy?.length ?? 0, approvedBy: p.approvedBy ?? [] } : {}),
          resumed: true,
          decision: p.decision,
        };
        return [{ type: 'data-tool-call-approval', id: p.toolCallId, data }];
      }
      const data: SuspendedCardData = {
        runId,
        toolCallId: p.toolCallId,
        toolName: p.toolName,
        args: p.args,
        suspendPayload: p.suspendPayload,
        resumeSchema: p.resumeSchema,
        chain: p.chain,
        ...described(p.toolName, p.args),
        resumed: true,
        decision: { by: p.decision.by, at: p.decision.at, resumeData: p.decision.resumeData },
      };
      return [{ type: 'data-tool-call-suspended', id: p.toolCallId, data }];
    }
    case 'finish':
      return [{ type: 'finish' }];
    case 'error':
      // A data part, not the stream-level `error` chunk: it stays in the message, also after a reload.
      return [
        {
          type: 'data-run-error',
          id: `error-${chunk.runId}`,
          data: { message: chunk.payload.message, ...(chunk.payload.code ? { code: chunk.payload.code } : {}) },
        },
      ];
  }
}

/** A TransformStream from runtime chunks to UI chunks (see toUIChunks). */
export function uiChunkTransform(runId?: string, describe?: CallDescriber): TransformStream<AgentChunk, UIMessageChunk> {
  return new TransformStream({
    transform(chunk, controller) {
      for (const ui of toUIChunks(chunk, runId, describe)) controller.enqueue(ui);
    },
  });
}
