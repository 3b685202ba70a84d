import { MessageCircleQuestionMark, ShieldCheck, UserCheck, UserRound } from 'lucide-react';
import type { Ref } from 'react';
import type { InboxItem } from './types';
import { Badge } from '@/components/ui/badge';
import { cn } from '@/components/ui/cn';
import { BidiWarning } from '@/components/ui/bidi-warning';
import { questionText, revealBidi, summarizeArgs, type People } from '@/lib/present/describe';
import { PersonLabel } from '@/components/ui/person';
import { CallTiming } from './call-timing';
import { isOverdue } from '@/components/ui/format-time';
import { useNow } from '@/components/ui/time';

/** The badge saying who may decide a call (or that it is a question). */
export function ApproverBadge({ item }: { item: InboxItem }) {
  if (item.status === 'unknown') return <Badge tone="accent">Outcome unknown</Badge>;
  if (item.kind === 'suspension') return <Badge tone="neutral">Question</Badge>;
  if (item.quorum) return <Badge tone="accent">{item.quorum} reviewers</Badge>;
  return item.approvers === 'reviewer' ? <Badge tone="accent">Reviewer only</Badge> : <Badge tone="neutral">Requester or reviewer</Badge>;
}

/** The summary line of one pending call, as a button that selects it. */
export function InboxRowButton({
  item,
  people,
  viewerId,
  selected,
  stale,
  onSelect,
  buttonRef,
}: {
  item: InboxItem;
  people: People;
  viewerId: string;
  selected: boolean;
  /** No longer waiting (decided or taken elsewhere); kept on screen only to explain why. */
  stale: boolean;
  onSelect: () => void;
  buttonRef: Ref<HTMLButtonElement>;
}) {
  const Icon = item.kind === 'suspension' ? MessageCircleQuestionMark : ShieldCheck;
  const now = useNow();
  // Highlighted by a red edge as well as the "Overdue" badge (CallTiming): never by colour alone.
  const overdue = item.status === 'pending' && now !== null && isOverdue(item.overdueAt, now);
  const chain = item.chain.length > 0 ? item.chain.join(' › ') : `${item.agentId} › ${item.toolName}`;
  const summary = item.kind === 'suspension' ? (questionText(item.suspendPayload) ?? summarizeArgs(item.args)) : summarizeArgs(item.args);
  return (
    <button
      ref={buttonRef}
      type="button"
      onClick={onSelect}
      aria-current={selected ? 'true' : undefined}
      aria-expanded={selected}
      data-overdue={overdue || undefined}
      className={cn(
        // An inset ring, not a tint: a tinted row would take its badges below 4.5:1 contrast in dark mode.
        'flex w-full flex-col gap-1 border-l-2 px-4 py-3 text-left focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none focus-visible:ring-inset',
        selected ? 'border-l-primary bg-primary/5' : overdue ? 'border-l-destructive hover:bg-muted/60' : 'border-l-transparent hover:bg-muted/60',
        // Marked by a dashed edge and a badge, not by fading: faded text falls below 4.5:1 contrast.
        stale && 'border-dashed',
      )}
    >
      <span className="flex w-full items-center gap-2">
        <Icon className={cn('size-4 shrink-0', selected ? 'text-primary' : 'text-muted-foreground')} aria-hidden />
        <span className="truncate font-mono text-sm font-medium">{item.toolName}</span>
        <ApproverBadge item={item} />
        {stale ? <Badge data-testid="inbox-row-stale">No longer waiting</Badge> : null}
        {item.status === 'pending' && item.escalatedAt ? (
          <Badge tone="accent" data-testid="inbox-escalated">
            Escalated to {item.assignedToRole === 'admin' ? 'admins' : item.assignedToRole}
          </Badge>
        ) : null}
        <BidiWarning value={[item.args, item.suspendPayload]} compact />
      </span>
      <CallTiming item={item} className="text-xs text-muted-foreground" />
      <span className="flex w-full min-w-0 items-center gap-1.5 text-xs text-muted-foreground">
        <UserRound className="size-3 shrink-0" aria-hidden />
        <span className="shrink-0">
          <PersonLabel id={item.requester} people={people} />
        </span>
        <span aria-hidden>·</span>
        <span className="truncate">{chain}</span>
        {item.assignedTo ? (
          <span className="ml-auto flex shrink-0 items-center gap-1" data-testid="row-assignee">
            <UserCheck className="size-3" aria-hidden />
            <span className="sr-only">Assigned to </span>
            {item.assignedTo === viewerId ? 'you' : revealBidi(people[item.assignedTo]?.name ?? item.assignedTo)}
          </span>
        ) : null}
      </span>
      <span className="w-full truncate text-sm text-muted-foreground">
        <bdi>{summary || 'No arguments'}</bdi>
      </span>
    </button>
  );
}
