'use client';

import Link from 'next/link';
import type { AuditEntry } from '@/lib/audit/queries';
import { ArgsTable } from '@/components/ui/args-table';
import { revealBidi, type People } from '@/lib/present/describe';
import { PersonLabel } from '@/components/ui/person';
import { LocalTime } from '@/components/ui/time';
import { useCallOutcome } from './call-outcome';
import { outcomeOf } from './outcome';
import { toolResultText } from './tool-result';

/**
 * A decided call opened read-only from the Done tab: what was asked (the arguments, and the edited
 * ones the tool ran with), the decision — who, when, the outcome and the reason — and what the tool
 * returned (GET /api/inbox/outcome), with a link to the read-only thread. Nothing here decides:
 * decisions are final.
 */
export function DoneDetail({ entry, people, id }: { entry: AuditEntry; people: People; id: string }) {
  const { label } = outcomeOf(entry);
  const ran = entry.kind === 'approval' || entry.kind === 'resume';
  return (
    <section id={id} aria-label={`Decided: ${entry.toolName}`} data-testid="done-detail" className="flex flex-col gap-3 rounded-lg border border-border p-3 md:p-4">
      <p className="text-sm" data-testid="done-detail-decision">
        <strong className="font-medium">{label}</strong> by <PersonLabel id={entry.actorId} people={people} /> ({entry.actorRole}) ·{' '}
        <LocalTime iso={entry.at} />
        {entry.reason ? (
          <>
            {' '}
            · “<bdi>{revealBidi(entry.reason)}</bdi>”
          </>
        ) : null}
      </p>
      <ArgsTable args={entry.args} label={entry.editedArgs ? 'Arguments asked for' : 'Arguments'} />
      {entry.editedArgs ? <ArgsTable args={entry.editedArgs} label="Arguments it ran with (edited)" /> : null}
      {entry.resumeData !== null && entry.resumeData !== undefined ? <ArgsTable args={entry.resumeData} label="Answer" /> : null}
      <div className="text-sm" data-testid="done-result">
        <h3 className="mb-1 font-medium">Result</h3>
        {ran ? <DoneResult runId={entry.runId} toolCallId={entry.toolCallId} /> : <p className="text-muted-foreground">Not executed: the tool did not run.</p>}
      </div>
      <p className="text-sm">
        <Link href={`/inbox/threads/${encodeURIComponent(entry.threadId)}`} className="text-primary underline underline-offset-2">
          Open the conversation (read-only)
        </Link>
      </p>
    </section>
  );
}

/** The tool's result of a decided call, in words (see toolResultText). */
function DoneResult({ runId, toolCallId }: { runId: string; toolCallId: string }) {
  const outcome = useCallOutcome({ runId, toolCallId });
  if (outcome === null) return <p className="text-muted-foreground">Loading…</p>;
  if (outcome === 'failed') return <p className="text-muted-foreground">The result could not be loaded.</p>;
  if (!outcome.result) return <p className="text-muted-foreground">No result recorded yet (the tool has not finished, or its outcome is unknown).</p>;
  const result = toolResultText(outcome.result);
  return (
    <p>
      {result.outcome === 'refused' ? 'The tool refused: ' : result.outcome === 'failed' ? 'The tool failed: ' : ''}
      <bdi>{revealBidi(result.text)}</bdi>
    </p>
  );
}
