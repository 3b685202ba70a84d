import { getToolName, isToolUIPart, type DynamicToolUIPart, type ToolUIPart } from 'ai';
import { CircleCheck, CircleX, Hourglass, LoaderCircle, TriangleExclamationPoint } from 'lucide-react';
import type { ChatPart } from './types';
import { Badge } from '@/components/ui/badge';
import { summarizeValue } from '@/components/ui/readable';

/** A standard AI SDK tool part: a static `tool-<name>` part or a `dynamic-tool` part. */
export type ToolPartView = ToolUIPart | DynamicToolUIPart;

/** The part as a tool part (the AI SDK's `isToolUIPart`), or null for any other part. */
export function asToolPart(part: ChatPart): ToolPartView | null {
  return isToolUIPart(part) ? part : null;
}

/** The tool's name, static or dynamic (the AI SDK's `getToolName`, formerly `getToolOrDynamicToolName`). */
export function toolNameOf(part: ToolPartView): string {
  return getToolName(part);
}

/**
 * A sub-agent's answer: a delegation tool's (`agent-<key>`) result is `{ text }`
 * (lib/agent/continuation.ts), shown as that text rather than as a field `text: …`.
 * @returns the answer, or null when `output` is anything else
 */
export function subAgentAnswer(output: unknown): string | null {
  if (!output || typeof output !== 'object' || Array.isArray(output)) return null;
  const keys = Object.keys(output);
  const text = (output as { text?: unknown }).text;
  return keys.length === 1 && typeof text === 'string' ? text : null;
}

/**
 * What a finished call returned, in a line: the result's `message` when it has one, a sub-agent's
 * answer as its text, else a readable summary (never JSON).
 */
export function resultLine(output: unknown): string {
  if (output && typeof output === 'object' && typeof (output as { message?: unknown }).message === 'string') {
    return (output as { message: string }).message;
  }
  return subAgentAnswer(output) ?? summarizeValue(output);
}

/** A small status pill for a tool part: running, done, failed, declined. */
export function ToolStatusBadge({ state, streaming }: { state: string; streaming: boolean }) {
  switch (state) {
    case 'output-available':
      return (
        <Badge tone="success">
          <CircleCheck aria-hidden /> Done
        </Badge>
      );
    case 'output-error':
      return (
        <Badge tone="danger">
          <TriangleExclamationPoint aria-hidden /> Failed
        </Badge>
      );
    case 'output-denied':
      return (
        <Badge tone="danger">
          <CircleX aria-hidden /> Declined
        </Badge>
      );
    case 'approval-requested':
      return (
        <Badge tone="accent">
          <Hourglass aria-hidden /> Waiting
        </Badge>
      );
    default:
      return streaming ? (
        <Badge>
          <LoaderCircle className="animate-spin" aria-hidden /> Running
        </Badge>
      ) : (
        <Badge>
          <Hourglass aria-hidden /> Paused
        </Badge>
      );
  }
}
