'use client';

import { MessageCircleQuestionMark } from 'lucide-react';
import { useId, useRef } from 'react';
import { resultLine } from './tool-status';
import type { CardProps } from './types';
import type { SuspendedCardData } from '@/lib/ui-stream/map';
import { AnswerView } from '@/components/ui/answer-view';
import { ArgsTable } from '@/components/ui/args-table';
import { Badge } from '@/components/ui/badge';
import { cn } from '@/components/ui/cn';
import { personName, questionText } from '@/lib/present/describe';
import { JsonSchemaForm } from '@/components/ui/json-schema-form';
import { LocalTime } from '@/components/ui/time';
import { readableErrorText } from '@/components/ui/readable';

export type QuestionCardProps = CardProps<SuspendedCardData>;

/** A suspended tool's question with a form generated from its resume schema; afterwards, the answer given. */
export function QuestionCard({ data, tool, viewerId, people, acting, disabled, onAction }: QuestionCardProps) {
  const titleId = useId();
  const cardRef = useRef<HTMLElement>(null);
  const answered = data.resumed === true;
  const question = questionText(data.suspendPayload);
  const chain = data.chain && data.chain.length > 2 ? data.chain.join(' › ') : null;

  return (
    <section
      ref={cardRef}
      tabIndex={-1}
      aria-labelledby={titleId}
      data-testid="question-card"
      data-card-id={data.toolCallId}
      data-awaiting-you={answered ? undefined : 'true'}
      data-tool-name={data.toolName}
      data-state={answered ? 'answered' : 'pending'}
      className={cn(
        'scroll-my-4 rounded-lg border bg-card p-4 shadow-xs focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none',
        answered ? 'border-border' : 'border-primary/40 ring-1 ring-primary/10',
      )}
    >
      <header className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <MessageCircleQuestionMark className="size-4 text-primary" aria-hidden />
        <h3 id={titleId} className="text-sm font-semibold">
          {answered ? 'Question' : 'The agent needs your answer'}
        </h3>
        <Badge className="font-mono">{data.toolName}</Badge>
        {chain ? <span className="text-xs text-muted-foreground">via {chain}</span> : null}
      </header>

      {question ? (
        <p className="mt-2 text-sm font-medium">{question}</p>
      ) : (
        <>
          <p className="mt-2 text-sm font-medium">The tool needs more information to continue.</p>
          {data.suspendPayload !== undefined && data.suspendPayload !== null ? (
            <ArgsTable args={data.suspendPayload} label="What the tool said" className="mt-2" />
          ) : null}
        </>
      )}

      {answered ? (
        <div className="mt-3 flex flex-col gap-2 border-t border-border pt-3">
          <p className="text-sm text-muted-foreground">
            Answered by {personName(data.decision?.by, people, viewerId)}
            {data.decision?.at ? (
              <>
                {' · '}
                <LocalTime iso={data.decision.at} />
              </>
            ) : null}
          </p>
          <div data-testid="question-answer" className="rounded-md bg-muted px-3 py-2">
            <AnswerView value={data.decision?.resumeData} />
          </div>
          {tool?.state === 'output-available' ? (
            <p className="text-sm text-muted-foreground">Result: {resultLine(tool.output)}</p>
          ) : tool?.state === 'output-error' ? (
            <p className="text-sm whitespace-pre-line text-destructive">The tool failed: {readableErrorText(tool.errorText)}</p>
          ) : null}
        </div>
      ) : (
        <div className="mt-3">
          <JsonSchemaForm
            schema={data.resumeSchema}
            idPrefix={`answer-${data.toolCallId.replace(/[^A-Za-z0-9_-]/g, '')}`}
            submitTestId="question-submit"
            submitLabel="Submit answer"
            busy={acting || disabled}
            onSubmit={(resumeData) => {
              // The form gives way to the answer: keep focus on the card.
              cardRef.current?.focus();
              onAction({ type: 'resume', runId: data.runId, toolCallId: data.toolCallId, resumeData });
            }}
          />
        </div>
      )}
    </section>
  );
}
