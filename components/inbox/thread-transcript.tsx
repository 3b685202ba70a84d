import { Bot, Check, Clock, MessageCircleQuestionMark, Wrench, X } from 'lucide-react';
import { decidersText, quorumProgress } from '@/components/chat/approvers';
import { Markdown } from '@/components/chat/markdown';
import type { ChatMessage } from '@/components/chat/types';
import { callTitle, personName, revealBidi, type People } from '@/lib/present/describe';
import { LocalTime } from '@/components/ui/time';

/** One card of the transcript as a line: the call and what became of it. */
function CardLine({ part, people, viewerId }: { part: ChatMessage['parts'][number]; people: People; viewerId: string }) {
  if (part.type !== 'data-tool-call-approval' && part.type !== 'data-tool-call-suspended') return null;
  const data = part.data;
  const question = part.type === 'data-tool-call-suspended';
  const decision = data.decision as { approved?: boolean; reason?: string; by: string; at: string } | undefined;
  const Icon = question ? MessageCircleQuestionMark : !decision ? Clock : decision.approved === false ? X : Check;
  // A waiting quorum call counts its approvals so far, in the chat card's words.
  const progress = part.type === 'data-tool-call-approval' && !decision ? quorumProgress(part.data, people, viewerId) : null;
  // The outcome names the deciders as the chat's card does: every approver of a quorum call.
  const outcome = !decision
    ? question
      ? 'waiting for an answer'
      : progress
        ? 'waiting for a decision:'
        : 'waiting for a decision'
    : part.type === 'data-tool-call-suspended'
      ? `answered by ${personName(decision.by, people, viewerId)}`
      : decision.approved === false
        ? `declined by ${decidersText(part.data, people, viewerId)}${decision.reason ? `: ${revealBidi(decision.reason)}` : ''}`
        : `approved by ${decidersText(part.data, people, viewerId)}`;
  return (
    <div data-testid="transcript-card" className="flex items-start gap-2 rounded-md border border-border bg-muted/40 px-3 py-2 text-sm">
      <Icon className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden />
      <p className="min-w-0">
        <span className="font-medium">{callTitle(data)}</span> <span className="text-muted-foreground">— {outcome}</span>
        {progress ? (
          <span className="text-muted-foreground" data-testid="transcript-quorum">
            {' '}
            <strong className="font-medium text-foreground">{progress.count}</strong> {progress.detail}
          </span>
        ) : null}
        {decision ? (
          <span className="text-muted-foreground">
            {' '}
            · <LocalTime iso={decision.at} />
          </span>
        ) : null}
      </p>
    </div>
  );
}

/**
 * A thread as a reviewer reads it: the requester's messages, the agent's text and each call with
 * its outcome — read-only (no composer, no buttons; decisions are made in the inbox).
 */
export function ThreadTranscript({ messages, people, viewerId, ownerId }: { messages: ChatMessage[]; people: People; viewerId: string; ownerId: string }) {
  if (messages.length === 0) return <p className="text-sm text-muted-foreground">This chat has no messages.</p>;
  return (
    <ol className="flex flex-col gap-4" aria-label="Messages">
      {messages.map((message) =>
        message.role === 'user' ? (
          <li key={message.id} data-testid="transcript-user" className="flex flex-col items-end gap-1">
            <span className="text-xs text-muted-foreground">{personName(ownerId, people, viewerId)}</span>
            <div className="max-w-[85%] rounded-2xl rounded-br-md bg-muted px-4 py-2 text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">
              <bdi>{revealBidi(message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''))}</bdi>
            </div>
          </li>
        ) : (
          <li key={message.id} data-testid="transcript-assistant" className="flex gap-2">
            <Bot className="mt-1 size-5 shrink-0 text-muted-foreground" aria-hidden />
            <div className="flex min-w-0 flex-1 flex-col gap-2">
              {message.parts.map((part, index) => {
                if (part.type === 'text') return part.text.trim() ? <Markdown key={index} text={part.text} streaming={false} /> : null;
                if (part.type === 'data-reviewer-question') {
                  return (
                    <p key={index} data-testid="transcript-question" className="rounded-md border border-primary/40 px-3 py-2 text-sm">
                      <span className="text-muted-foreground">Question from {part.data.by === viewerId ? 'you' : revealBidi(part.data.byName)}: </span>
                      <bdi>{revealBidi(part.data.body)}</bdi>
                    </p>
                  );
                }
                if (part.type === 'data-tool-call-approval' || part.type === 'data-tool-call-suspended') {
                  return <CardLine key={index} part={part} people={people} viewerId={viewerId} />;
                }
                if (part.type.startsWith('tool-') && 'toolCallId' in part) {
                  const name = part.type === 'dynamic-tool' ? (part as { toolName: string }).toolName : part.type.slice(5);
                  return (
                    <p key={index} className="flex items-center gap-1.5 text-xs text-muted-foreground">
                      <Wrench className="size-3" aria-hidden /> Tool <span className="font-mono">{name}</span>
                    </p>
                  );
                }
                return null;
              })}
            </div>
          </li>
        ),
      )}
    </ol>
  );
}
