import { CircleCheck, CircleX, Hourglass, LoaderCircle, TriangleExclamationPoint } from 'lucide-react';
import type { ChatPart } from './types';
import { Badge } from '@/components/ui/badge';
import { summarizeValue } from '@/components/ui/readable';

/** The standard AI SDK tool part (`tool-<name>`), narrowed to what the cards read. */
export interface ToolPartView {
  type: string;
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
}

export function asToolPart(part: ChatPart): ToolPartView | null {
  if (!part.type.startsWith('tool-') && part.type !== 'dynamic-tool') return null;
  return part as unknown as ToolPartView;
}

export function toolNameOf(part: ToolPartView): string {
  const dynamic = part as ToolPartView & { toolName?: string };
  return part.type === 'dynamic-tool' ? (dynamic.toolName ?? 'tool') : part.type.slice('tool-'.length);
}

/** What a finished call returned, in a line: the result's `message` when it has one, else a readable summary (never JSON). */
export function resultLine(output: unknown): string {
  if (output && typeof output === 'object' && typeof (output as { message?: unknown }).message === 'string') {
    return (output as { message: string }).message;
  }
  return summarizeValue(output);
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
