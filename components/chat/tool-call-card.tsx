import { Wrench } from 'lucide-react';
import { resultLine, subAgentAnswer, toolNameOf, ToolStatusBadge, type ToolPartView } from './tool-status';
import { ArgsTable } from '@/components/ui/args-table';
import { describeToolCall } from '@/lib/present/describe';
import { readableErrorText } from '@/components/ui/readable';
import { ValueView } from '@/components/ui/value-view';

/** A tool call that needed nobody: name, what it does, status, and arguments/result on demand. */
export function ToolCallCard({ part, streaming }: { part: ToolPartView; streaming: boolean }) {
  const name = toolNameOf(part);
  return (
    <div data-testid="tool-call" data-tool-name={name} data-state={part.state} className="rounded-lg border border-border bg-card px-3 py-2 text-sm">
      <div className="flex flex-wrap items-center gap-2">
        <Wrench className="size-3.5 text-muted-foreground" aria-hidden />
        <span className="font-mono text-xs font-medium">{name}</span>
        <ToolStatusBadge state={part.state} streaming={streaming} />
        <span className="min-w-0 flex-1 truncate text-xs text-muted-foreground">{describeToolCall(name, part.input)}</span>
      </div>
      {part.state === 'output-available' ? (
        <p data-testid="tool-result" className="mt-1 text-xs whitespace-pre-line text-muted-foreground">
          {resultLine(part.output)}
        </p>
      ) : part.state === 'output-error' ? (
        <p data-testid="tool-error" className="mt-1 text-xs whitespace-pre-line text-destructive">
          {readableErrorText(part.errorText)}
        </p>
      ) : null}
      <details className="mt-1">
        <summary className="cursor-pointer rounded text-xs text-muted-foreground hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
          Details
        </summary>
        <ArgsTable args={part.input} className="mt-1" />
        {part.state === 'output-available' ? (
          <div className="mt-2 rounded-md bg-muted p-2 text-xs" data-testid="tool-result-details">
            <p className="mb-1 font-medium">Result</p>
            <ValueView value={subAgentAnswer(part.output) ?? part.output} />
          </div>
        ) : null}
      </details>
    </div>
  );
}
