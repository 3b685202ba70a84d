'use client';

import { Plus, Save, SlidersHorizontal } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { toast } from 'sonner';
import type { Viewer } from '@/components/ui/account-menu';
import type { FriendlyError } from '@/components/ui/api-error';
import { AppNav } from '@/components/ui/app-nav';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import type { People } from '@/lib/present/describe';
import { ErrorNotice } from '@/components/ui/error-notice';
import { PersonLabel } from '@/components/ui/person';
import { sendJson } from '@/components/ui/send-json';
import { Input } from '@/components/ui/textarea';
import { RelativeTime } from '@/components/ui/time';
import { checkArgumentTypes, type ToolInputSchemas } from '@/lib/policies/arg-types';
import { policiesWriteSchema, type PolicyRule, type PolicyRuleInput } from '@/lib/policies/rules';
import { draftFromRule, ruleFromDraft, summariseChange, type RuleDraft } from './drafts';
import { RuleEditor } from './rule-editor';

export interface PolicyChangeView {
  version: number;
  rules: PolicyRule[];
  previous: PolicyRule[] | null;
  changedBy: string;
  note: string | null;
  /** ISO 8601 */
  createdAt: string;
}

/**
 * The admins' editor of the ordered approval rules: each rule matches agent and tool by glob, may
 * have a CEL condition (with history totals) and says what follows — allow, require approval (who
 * decides, optional deadline) or ask the classifier. Validated here with the same schema the server
 * uses; saving stores a new version (the list of versions is below), and saving the rules already
 * in force says nothing changed.
 */
export function PolicyEditor({
  initial,
  changes,
  people,
  toolInputs,
  viewer,
}: {
  initial: { version: number; rules: PolicyRule[] };
  changes: PolicyChangeView[];
  people: People;
  /** The app's tools' input schemas: a condition is checked against the tools its rule applies to, as the server does. */
  toolInputs: ToolInputSchemas;
  viewer: Viewer;
}) {
  const router = useRouter();
  const [drafts, setDrafts] = useState<RuleDraft[]>(() => initial.rules.map(draftFromRule));
  const [version, setVersion] = useState(initial.version);
  const [note, setNote] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<FriendlyError | null>(null);
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [invalid, setInvalid] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  // Rules shown with their form (a new rule, one with a problem, one the admin opened); the rest as one line.
  const [open, setOpen] = useState<Set<string>>(() => new Set());

  const update = (index: number, patch: Partial<RuleDraft>) => {
    setDrafts((list) => list.map((draft, i) => (i === index ? { ...draft, ...patch } : draft)));
    setDirty(true);
  };
  const move = (index: number, by: number) => {
    setDrafts((list) => {
      const next = [...list];
      const [rule] = next.splice(index, 1);
      next.splice(index + by, 0, rule);
      return next;
    });
    setDirty(true);
  };
  const remove = (index: number) => {
    setDrafts((list) => list.filter((_, i) => i !== index));
    setDirty(true);
  };
  const add = () => {
    const draft = draftFromRule({ id: `rule-${drafts.length + 1}`, name: 'New rule', agent: '*', tool: '*', outcome: { type: 'require', approvers: 'reviewer' } });
    setDrafts((list) => [...list, draft]);
    setOpen((keys) => new Set(keys).add(draft.key));
    setDirty(true);
  };

  const save = async () => {
    setError(null);
    const rules: PolicyRuleInput[] = drafts.map(ruleFromDraft);
    const checked = policiesWriteSchema.superRefine((value, ctx) => checkArgumentTypes(value.rules, toolInputs, ctx)).safeParse({ rules });
    if (!checked.success) {
      setIssues(Object.fromEntries(checked.error.issues.map((issue) => [issue.path.join('.'), issue.message])));
      const broken = new Set(checked.error.issues.map((issue) => Number(issue.path[1])));
      setOpen((keys) => new Set([...keys, ...drafts.filter((_, index) => broken.has(index)).map((draft) => draft.key)]));
      setInvalid(`${broken.size === 1 ? 'One rule needs' : `${broken.size} rules need`} fixing before they can be saved; the problems are shown under the fields.`);
      return;
    }
    setInvalid(null);
    setIssues({});
    setSaving(true);
    const outcome = await sendJson<{ version: number; changed: boolean }>('/api/policies', { method: 'PUT', body: { rules, baseVersion: version, ...(note.trim() ? { note: note.trim() } : {}) } });
    setSaving(false);
    if (!outcome.ok) {
      setError(outcome.error);
      return;
    }
    setVersion(outcome.data.version);
    setDirty(false);
    if (!outcome.data.changed) {
      // The same rules as those in force: nothing was saved (the note stays for a real change).
      const unsaved = note.trim() ? ' A note is kept only with a new version, so yours was not saved: it stays here for your next change.' : '';
      toast.info(`Nothing changed: these are the rules of version ${outcome.data.version}, still in force. No new version was saved.${unsaved}`);
      return;
    }
    setNote('');
    toast.success(`Saved as version ${outcome.data.version}. New calls follow it; calls already waiting keep their rule.`);
    router.refresh();
  };

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border px-3 md:px-4">
        <SlidersHorizontal className="size-5 text-primary" aria-hidden />
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">Approval policies</h1>
        <AppNav viewer={viewer} current="policies" />
      </header>
      <main className="mx-auto flex w-full max-w-4xl min-w-0 flex-1 flex-col gap-4 px-3 py-4 md:px-4">
        <section aria-labelledby="rules-heading" className="flex flex-col gap-3">
          <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
            <h2 id="rules-heading" className="text-base font-semibold">
              Rules
            </h2>
            <span className="text-sm text-muted-foreground" data-testid="policy-version">
              {version === 0 ? 'No version saved yet' : `Version ${version} in force`}
            </span>
          </div>
          <p className="text-sm text-muted-foreground">
            The first rule whose agent, tool and condition match decides. Rules add approval on top of what the code asks for; they cannot
            remove it. A condition that fails (for example a field the call does not have) requires a reviewer. Conditions are{' '}
            <a className="underline underline-offset-2" href="https://cel.dev" target="_blank" rel="noreferrer noopener">
              CEL
            </a>{' '}
            over <code className="font-mono text-xs">args</code>, <code className="font-mono text-xs">agent</code>, <code className="font-mono text-xs">tool</code>,{' '}
            <code className="font-mono text-xs">requester</code> (the requester&apos;s user id, e.g.{' '}
            <code className="font-mono text-xs">requester == &apos;user-ada&apos;</code>), <code className="font-mono text-xs">context</code> (what the caller sent as
            its request context) and, with history, <code className="font-mono text-xs">history.total</code> (earlier calls plus this
            one), <code className="font-mono text-xs">history.sum</code> and <code className="font-mono text-xs">history.count</code>. Write decimals in arithmetic
            (<code className="font-mono text-xs">args.amount * 2.0</code>).
          </p>
          {drafts.length === 0 ? (
            <p className="rounded-lg border border-dashed border-border p-6 text-center text-sm text-muted-foreground" data-testid="no-rules">
              No rules: only the approvals written in code apply.
            </p>
          ) : (
            <ol className="flex flex-col gap-3">
              {drafts.map((draft, index) => (
                <RuleEditor
                  key={draft.key}
                  index={index}
                  count={drafts.length}
                  draft={draft}
                  open={open.has(draft.key)}
                  onToggle={(isOpen) =>
                    setOpen((keys) => {
                      const next = new Set(keys);
                      if (isOpen) next.add(draft.key);
                      else next.delete(draft.key);
                      return next;
                    })
                  }
                  issues={issues}
                  onChange={(patch) => update(index, patch)}
                  onMove={(by) => move(index, by)}
                  onRemove={() => remove(index)}
                />
              ))}
            </ol>
          )}
          <div>
            <Button variant="outline" size="sm" onClick={add} data-testid="add-rule">
              <Plus aria-hidden /> Add rule
            </Button>
          </div>
          <div className="flex flex-col gap-2 rounded-lg border border-border bg-card p-3 sm:flex-row sm:items-end">
            <label className="flex flex-1 flex-col gap-1 text-sm">
              <span className="font-medium">
                Note <span className="font-normal text-muted-foreground">(optional, kept with this version)</span>
              </span>
              <Input value={note} maxLength={500} onChange={(event) => setNote(event.target.value)} placeholder="e.g. Tighter refund limits for the sale" />
            </label>
            <Button variant="primary" onClick={() => void save()} disabled={saving} data-testid="save-policies">
              <Save aria-hidden /> {saving ? 'Saving…' : dirty ? 'Save changes' : 'Save'}
            </Button>
          </div>
          {invalid ? (
            <p role="alert" className="rounded-md border border-destructive/40 px-3 py-2 text-sm text-destructive" data-testid="policy-invalid">
              {invalid}
            </p>
          ) : null}
          {error ? (
            <ErrorNotice
              error={error}
              testId="policy-error"
              onRefresh={error.code === 'POLICY_CHANGED' ? () => window.location.reload() : undefined}
              onDismiss={() => setError(null)}
            />
          ) : null}
        </section>

        <section aria-labelledby="history-heading" className="flex flex-col gap-2">
          <h2 id="history-heading" className="text-base font-semibold">
            Changes
          </h2>
          {changes.length === 0 ? (
            <p className="text-sm text-muted-foreground">No changes yet.</p>
          ) : (
            <ul className="divide-y divide-border rounded-lg border border-border" data-testid="policy-changes">
              {changes.map((change) => (
                <li key={change.version} data-testid="policy-change">
                  <details>
                    <summary className="flex cursor-pointer flex-wrap items-center gap-x-2 gap-y-1 px-3 py-2 text-sm focus-visible:bg-muted focus-visible:outline-none">
                      <Badge>v{change.version}</Badge>
                      <PersonLabel id={change.changedBy} people={people} />
                      <span className="text-muted-foreground">
                        <RelativeTime iso={change.createdAt} />
                      </span>
                      <span className="min-w-0 text-muted-foreground">{summariseChange(change.previous, change.rules)}</span>
                      {change.note ? <span className="min-w-0 italic">“{change.note}”</span> : null}
                    </summary>
                    <div className="grid gap-3 px-3 pb-3 md:grid-cols-2">
                      <div>
                        <p className="text-xs font-medium text-muted-foreground">Before</p>
                        <pre className="mt-1 max-h-72 overflow-auto rounded bg-muted p-2 text-xs">{JSON.stringify(change.previous ?? [], null, 2)}</pre>
                      </div>
                      <div>
                        <p className="text-xs font-medium text-muted-foreground">After</p>
                        <pre className="mt-1 max-h-72 overflow-auto rounded bg-muted p-2 text-xs">{JSON.stringify(change.rules, null, 2)}</pre>
                      </div>
                    </div>
                  </details>
                </li>
              ))}
            </ul>
          )}
        </section>
      </main>
    </div>
  );
}
