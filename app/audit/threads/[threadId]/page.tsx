import { ScrollText } from 'lucide-react';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Fragment } from 'react';
import { notFound } from 'next/navigation';
import { deciderIds, listParts } from '@/components/chat/approvers';
import { outcomeOf } from '@/components/inbox/outcome';
import type { AuditEntry } from '@/lib/audit/queries';
import { AppNav } from '@/components/ui/app-nav';
import { Badge } from '@/components/ui/badge';
import { revealBidi, summarizeArgs, type People } from '@/lib/present/describe';
import { PersonLabel } from '@/components/ui/person';
import { LocalTime } from '@/components/ui/time';
import { displayNames, requirePageActor } from '@/lib/auth/session';
import { prisma } from '@/lib/store/db';
import { THREAD_ID } from '@/lib/chat/limits';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Thread · Audit' };

type Part = { type?: string; text?: string; toolName?: string; input?: unknown; output?: unknown };

/** One stored model message as lines of readable text: words, tool calls and their results. */
function lines(content: unknown): { kind: 'text' | 'call' | 'result'; text: string }[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return (content as Part[]).flatMap((part): { kind: 'text' | 'call' | 'result'; text: string }[] => {
    if (part.type === 'text' && part.text) return [{ kind: 'text' as const, text: part.text }];
    if (part.type === 'tool-call') return [{ kind: 'call' as const, text: `${part.toolName}(${summarizeArgs(part.input, 200)})` }];
    if (part.type === 'tool-result') {
      const output = (part.output as { value?: unknown } | undefined)?.value ?? part.output;
      return [{ kind: 'result' as const, text: `${part.toolName} → ${summarizeArgs(output, 200)}` }];
    }
    return [];
  });
}

type DecisionRow = {
  kind: string;
  actorId: string;
  actorRole: string;
  editedArgs: unknown;
  pendingCall: { quorum: number | null; approvedBy: string[] };
};

/** A decision's outcome in the words of the audit log and the inbox's Done tab (outcomeOf), its quorum count included. */
function outcome(decision: DecisionRow) {
  const { quorum, approvedBy } = decision.pendingCall;
  // `kind` is text in the table; the store writes only these kinds (the audit log reads it the same way).
  return outcomeOf({ ...decision, kind: decision.kind as AuditEntry['kind'], quorum, approvedBy });
}

/**
 * Who a decision names, as the chat's card names the deciders of a call: the approval that filled a
 * quorum names everyone who approved the call (the votes before it, then its own author).
 */
function deciders(decision: DecisionRow): string[] {
  if (decision.kind !== 'approval') return [decision.actorId];
  const { quorum, approvedBy } = decision.pendingCall;
  return deciderIds({ quorum: quorum ?? undefined, approvedBy, decision: { approved: true, by: decision.actorId, at: '' } });
}

/** People as a list ("Rita <…> and Sam <…>"), each with their email. */
function PersonList({ ids, people }: { ids: string[]; people: People }) {
  return (
    <>
      {listParts(ids).map((part, index) =>
        part.type === 'element' ? <PersonLabel key={index} id={part.value} people={people} /> : <Fragment key={index}>{part.value}</Fragment>,
      )}
    </>
  );
}

/**
 * A thread as the audit shows it (admins, read-only, also a deleted one): its messages grouped by
 * run — each run anchored as `#run-<id>`, the target of the audit's links — with the decisions
 * made in it. Nothing here can be sent or decided.
 */
export default async function AuditThreadPage({ params }: { params: Promise<{ threadId: string }> }) {
  const { threadId } = await params;
  if (!THREAD_ID.test(threadId)) notFound();
  const admin = await requirePageActor(['admin']);
  const db = prisma();
  const thread = await db.thread.findUnique({ where: { id: threadId }, select: { id: true, title: true, resourceId: true, agentId: true, deletedAt: true } });
  if (!thread) notFound();
  const [messages, decisions] = await Promise.all([
    db.message.findMany({ where: { threadId }, orderBy: { seq: 'asc' }, select: { id: true, role: true, content: true, runId: true, createdAt: true } }),
    db.decision.findMany({
      where: { pendingCall: { threadId } },
      orderBy: { createdAt: 'asc' },
      select: {
        id: true,
        kind: true,
        reason: true,
        actorId: true,
        actorRole: true,
        editedArgs: true,
        createdAt: true,
        pendingCall: { select: { rootRunId: true, toolName: true, quorum: true, approvedBy: true } },
      },
    }),
  ]);
  const people = await displayNames([admin.id, thread.resourceId, ...decisions.flatMap((decision) => [decision.actorId, ...decision.pendingCall.approvedBy])]);
  const anchored = new Set<string>();
  const anchor = (runId: string | null) => {
    if (!runId || anchored.has(runId)) return undefined;
    anchored.add(runId);
    return `run-${runId}`;
  };
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <ScrollText className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">
          <bdi>{revealBidi(thread.title)}</bdi>
        </h1>
        <AppNav viewer={{ id: admin.id, name: admin.name, role: admin.role }} current="audit" />
      </header>
      <main className="mx-auto flex w-full max-w-3xl min-w-0 flex-1 flex-col gap-4 p-3 md:p-6">
        <p className="text-sm text-muted-foreground">
          <Link href="/audit" className="text-primary underline underline-offset-2">
            ← Audit
          </Link>{' '}
          · read-only · owner <PersonLabel id={thread.resourceId} people={people} /> · agent {thread.agentId}
          {thread.deletedAt ? ' · deleted by its owner' : ''}
        </p>
        <ol className="flex flex-col gap-3" aria-label="Messages">
          {messages.map((message) => (
            <li
              key={message.id}
              id={anchor(message.runId)}
              data-testid="transcript-message"
              data-role={message.role}
              className="scroll-mt-4 rounded-md border border-border p-3 target:ring-2 target:ring-ring"
            >
              <p className="flex items-center gap-2 text-xs text-muted-foreground">
                <span className="font-medium text-foreground capitalize">{message.role}</span>
                <LocalTime iso={message.createdAt.toISOString()} />
                {message.runId ? <span className="truncate">run {message.runId}</span> : null}
              </p>
              {lines(message.content).map((line, index) => (
                <p key={index} className={line.kind === 'text' ? 'mt-1 text-sm break-words whitespace-pre-wrap' : 'mt-1 font-mono text-xs break-words text-muted-foreground'}>
                  <bdi>{revealBidi(line.text)}</bdi>
                </p>
              ))}
            </li>
          ))}
        </ol>
        <section aria-labelledby="decisions-heading" className="flex flex-col gap-2">
          <h2 id="decisions-heading" className="text-sm font-semibold">
            Decisions in this thread
          </h2>
          {decisions.length === 0 ? <p className="text-sm text-muted-foreground">None.</p> : null}
          <ul className="flex flex-col gap-2">
            {decisions.map((decision) => (
              <li key={decision.id} id={anchor(decision.pendingCall.rootRunId)} data-testid="transcript-decision" data-kind={decision.kind} className="scroll-mt-4 text-sm">
                <Badge tone={outcome(decision).tone}>{outcome(decision).label}</Badge> <span className="font-mono text-xs">{decision.pendingCall.toolName}</span> by{' '}
                <PersonList ids={deciders(decision)} people={people} /> · <LocalTime iso={decision.createdAt.toISOString()} />
                {decision.reason ? (
                  <>
                    {' '}
                    · “<bdi>{revealBidi(decision.reason)}</bdi>”
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      </main>
    </div>
  );
}
