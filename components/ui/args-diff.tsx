import diff from 'microdiff';
import { formatValue, revealBidi } from '@/lib/present/describe';
import { cn } from './cn';

/** One changed field between two versions of a call's arguments. */
export interface FieldChange {
  /** Dotted path of the field, e.g. `amount` or `address.city` or `items.0`. */
  path: string;
  kind: 'changed' | 'added' | 'removed';
  before?: unknown;
  after?: unknown;
}

/**
 * The field-level differences between a call's arguments before and after an edit (microdiff:
 * nested objects and arrays are walked; each leaf that changed is one entry).
 * @returns the changes in path order; empty when nothing changed
 */
export function argsDiff(before: unknown, after: unknown): FieldChange[] {
  const isObject = (value: unknown) => typeof value === 'object' && value !== null;
  if (!isObject(before) || !isObject(after)) {
    return Object.is(before, after) ? [] : [{ path: '(value)', kind: 'changed', before, after }];
  }
  return diff(before as Record<string, unknown>, after as Record<string, unknown>)
    .map((change): FieldChange => {
      const path = change.path.join('.');
      if (change.type === 'CREATE') return { path, kind: 'added', after: change.value };
      if (change.type === 'REMOVE') return { path, kind: 'removed', before: change.oldValue };
      return { path, kind: 'changed', before: change.oldValue, after: change.value };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * What an edit changed, field by field: "amount: 250 → 100" (removed and added fields marked), for
 * the requester's card, the inbox and the audit — never raw JSON.
 */
export function ArgsDiff({ before, after, className }: { before: unknown; after: unknown; className?: string }) {
  const changes = argsDiff(before, after);
  if (changes.length === 0) return <p className={cn('text-sm text-muted-foreground', className)}>No field changed.</p>;
  return (
    <table data-testid="args-diff" className={cn('w-full text-sm', className)}>
      <caption className="sr-only">Changed arguments: field, before, after</caption>
      <thead className="sr-only">
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.path} data-testid="args-diff-row" data-path={change.path} className="align-top">
            <th scope="row" className="py-0.5 pr-3 text-left font-mono text-xs font-normal text-muted-foreground">
              {revealBidi(change.path)}
            </th>
            <td className="py-0.5 pr-2">
              {change.kind === 'added' ? (
                <span className="text-muted-foreground">(not set)</span>
              ) : (
                <del className="text-destructive decoration-destructive/60">
                  <bdi>{formatValue(change.before)}</bdi>
                </del>
              )}
            </td>
            <td className="py-0.5 pr-2 text-muted-foreground" aria-hidden>
              →
            </td>
            <td className="py-0.5">
              {change.kind === 'removed' ? (
                <span className="text-muted-foreground">(removed)</span>
              ) : (
                <ins className="font-medium text-success no-underline">
                  <bdi>{formatValue(change.after)}</bdi>
                </ins>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
