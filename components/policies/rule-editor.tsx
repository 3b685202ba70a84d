'use client';

import { ArrowDown, ArrowUp, Trash2 } from 'lucide-react';
import { useId, useMemo } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Input, Textarea } from '@/components/ui/textarea';
import { deadlineSequence, ruleSummary, type RuleDraft } from './drafts';

const selectClass = 'h-9 w-full rounded-md border border-input bg-background px-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring';

/**
 * One rule of the policy editor: collapsed to its summary, or open with its fields (name, agent and
 * tool globs, CEL condition, history window, outcome, approvers or quorum, deadline, classifier
 * threshold), the schema's issues under the fields they name, and move up, move down and remove.
 */
export function RuleEditor({
  index,
  count,
  draft,
  open,
  onToggle,
  issues,
  onChange,
  onMove,
  onRemove,
}: {
  index: number;
  count: number;
  draft: RuleDraft;
  open: boolean;
  onToggle: (open: boolean) => void;
  issues: Record<string, string>;
  onChange: (patch: Partial<RuleDraft>) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const base = useId();
  const issue = (field: string) => issues[`rules.${index}.${field}`];
  const outcomeIssue = useMemo(
    () => Object.entries(issues).find(([path]) => path.startsWith(`rules.${index}.outcome`) || path.startsWith(`rules.${index}.history`))?.[1],
    [issues, index],
  );
  const field = (name: string, label: string, input: React.ReactNode, hint?: string) => (
    <div className="flex min-w-0 flex-col gap-1 text-sm">
      <label htmlFor={`${base}-${name}`} className="font-medium">
        {label}
      </label>
      {input}
      {issue(name) ? (
        <p id={`${base}-${name}-error`} className="text-xs text-destructive">
          {issue(name)}
        </p>
      ) : hint ? (
        <p className="text-xs text-muted-foreground">{hint}</p>
      ) : null}
    </div>
  );
  const inputProps = (name: keyof RuleDraft) => ({
    id: `${base}-${name}`,
    value: String(draft[name] ?? ''),
    'aria-invalid': issue(name) ? true : undefined,
    'aria-describedby': issue(name) ? `${base}-${name}-error` : undefined,
    onChange: (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => onChange({ [name]: event.target.value } as Partial<RuleDraft>),
  });
  return (
    <li className="rounded-lg border border-border bg-card shadow-xs" data-testid="policy-rule" aria-label={`Rule ${index + 1}: ${draft.name}`}>
      <details open={open} onToggle={(event) => onToggle(event.currentTarget.open)}>
        <summary className="flex cursor-pointer flex-col gap-0.5 rounded-lg px-3 py-2 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
          <span className="flex min-w-0 items-center gap-2">
            <Badge>#{index + 1}</Badge>
            <span className="min-w-0 truncate text-sm font-semibold">{draft.name || 'Untitled rule'}</span>
          </span>
          <code className="min-w-0 truncate font-mono text-xs text-muted-foreground" data-testid="policy-rule-summary">
            {ruleSummary(draft)}
          </code>
        </summary>
        <div className="px-3 pb-3">
          <div className="mb-3 flex flex-wrap items-center justify-end gap-2">
            <Button variant="ghost" size="sm" onClick={() => onMove(-1)} disabled={index === 0} aria-label={`Move rule ${index + 1} up`}>
              <ArrowUp aria-hidden />
            </Button>
            <Button variant="ghost" size="sm" onClick={() => onMove(1)} disabled={index === count - 1} aria-label={`Move rule ${index + 1} down`}>
              <ArrowDown aria-hidden />
            </Button>
            <Button variant="ghost" size="sm" onClick={onRemove} aria-label={`Remove rule ${index + 1}`}>
              <Trash2 aria-hidden />
            </Button>
          </div>
          <div className="grid gap-3 sm:grid-cols-2">
            {field('name', 'Name', <Input {...inputProps('name')} maxLength={120} />)}
            {field('id', 'Rule id', <Input {...inputProps('id')} maxLength={64} className="font-mono" />, 'Lower-case letters, digits and dashes')}
            {field('agent', 'Agent (glob)', <Input {...inputProps('agent')} className="font-mono" />, 'e.g. * or ops-agent or data-*')}
            {field('tool', 'Tool (glob)', <Input {...inputProps('tool')} className="font-mono" />, 'e.g. issue-refund or {delete,send}-*')}
            <div className="sm:col-span-2">
              {field(
                'condition',
                'Condition (CEL, optional)',
                <Textarea {...inputProps('condition')} rows={2} className="font-mono text-xs" placeholder="args.amount > 100" />,
                'Empty: every call of the tool matches',
              )}
            </div>
            <fieldset className="flex flex-col gap-2 rounded-md border border-border p-2 sm:col-span-2">
              <legend className="px-1 text-sm font-medium">History</legend>
              <label className="flex items-center gap-2 text-sm">
                <input type="checkbox" checked={draft.useHistory} onChange={(event) => onChange({ useHistory: event.target.checked })} />
                Sum earlier calls of this tool (executed or waiting, not declined)
              </label>
              {draft.useHistory ? (
                <div className="grid gap-2 sm:grid-cols-3">
                  {field('historySum', 'Sum of argument', <Input {...inputProps('historySum')} className="font-mono" placeholder="amount" />)}
                  {field('historyBy', 'For the same', (
                    <select {...inputProps('historyBy')} className={selectClass}>
                      <option value="requester">requester</option>
                      <option value="thread">chat</option>
                      <option value="all">— all calls —</option>
                      <option value="args">argument…</option>
                    </select>
                  ))}
                  {draft.historyBy === 'args'
                    ? field('historyByArg', 'Argument', <Input {...inputProps('historyByArg')} className="font-mono" placeholder="orderId" />)
                    : null}
                  {field('historyHours', 'Window (hours)', <Input {...inputProps('historyHours')} type="number" min={1} inputMode="numeric" />)}
                </div>
              ) : null}
            </fieldset>
            <fieldset className="flex flex-col gap-2 rounded-md border border-border p-2 sm:col-span-2">
              <legend className="px-1 text-sm font-medium">Then</legend>
              <div className="grid gap-2 sm:grid-cols-3">
                {field('outcome', 'Outcome', (
                  <select {...inputProps('outcome')} className={selectClass}>
                    <option value="allow">Allow (add no approval)</option>
                    <option value="require">Require approval</option>
                    <option value="classify">Ask the classifier</option>
                  </select>
                ))}
                {draft.outcome !== 'allow'
                  ? field('approvers', 'Who decides', (
                      <select {...inputProps('approvers')} className={selectClass}>
                        <option value="requester">The requester (or a reviewer)</option>
                        <option value="reviewer">A reviewer</option>
                        <option value="four-eyes">Four eyes: a reviewer, not the requester</option>
                        <option value="quorum">Several reviewers (quorum)</option>
                      </select>
                    ))
                  : null}
                {draft.outcome !== 'allow' && draft.approvers === 'quorum'
                  ? field('quorum', 'Reviewers needed', <Input {...inputProps('quorum')} type="number" min={2} max={10} inputMode="numeric" />)
                  : null}
                {draft.outcome === 'classify'
                  ? field('threshold', 'Threshold (0–1)', <Input {...inputProps('threshold')} type="number" min={0} max={1} step={0.05} inputMode="decimal" />, 'A score at or above it waits for a person')
                  : null}
              </div>
              {draft.outcome === 'classify' ? (
                <div className="flex flex-wrap gap-x-4 gap-y-1">
                  <label className="flex items-center gap-2 text-sm">
                    <input type="checkbox" checked={draft.rationale} onChange={(event) => onChange({ rationale: event.target.checked })} />
                    Ask for a rationale
                  </label>
                  <label className="flex items-center gap-2 text-sm">
                    <input type="checkbox" checked={draft.sendValues} onChange={(event) => onChange({ sendValues: event.target.checked })} />
                    Send argument values (sensitive ones masked)
                  </label>
                </div>
              ) : null}
              {draft.outcome !== 'allow' ? (
                <>
                  <label className="flex items-center gap-2 text-sm">
                    <input type="checkbox" checked={draft.useDeadline} onChange={(event) => onChange({ useDeadline: event.target.checked })} />
                    Deadline
                  </label>
                  {draft.useDeadline ? (
                    <div className="grid gap-2 sm:grid-cols-3">
                      {field('deadlineMinutes', 'After (minutes)', <Input {...inputProps('deadlineMinutes')} type="number" min={1} inputMode="numeric" />)}
                      {field('deadlineAction', 'Then', (
                        <select {...inputProps('deadlineAction')} className={selectClass}>
                          <option value="decline">Decline</option>
                          <option value="escalate">Escalate to admins</option>
                        </select>
                      ))}
                      {field('deadlineReason', 'Reason the agent reads', <Input {...inputProps('deadlineReason')} maxLength={500} placeholder="No reviewer decided in time" />)}
                      <p className="text-xs text-muted-foreground sm:col-span-3" data-testid="policy-deadline-sequence">
                        Unless someone decides: {deadlineSequence(draft)}
                        {draft.deadlineAction === 'escalate' ? ' (an escalated call gets the same time again, then it is declined).' : '.'}
                      </p>
                    </div>
                  ) : null}
                </>
              ) : null}
              {outcomeIssue ? <p className="text-xs text-destructive">{outcomeIssue}</p> : null}
            </fieldset>
          </div>
        </div>
      </details>
    </li>
  );
}
