import { Braces } from 'lucide-react';
import { BidiWarning } from './bidi-warning';
import { formatJson, formatValue, revealBidi } from '@/lib/present/describe';
import { cn } from './cn';

/**
 * A tool call's arguments as a small key/value table, with the raw JSON on demand.
 * Non-object args are shown as one value. Keys and values are untrusted: each is isolated (`<bdi>`),
 * direction controls are shown as markers, and a warning says when there are any.
 */
export function ArgsTable({ args, className, label = 'Arguments' }: { args: unknown; className?: string; label?: string }) {
  const entries =
    args && typeof args === 'object' && !Array.isArray(args) ? Object.entries(args as Record<string, unknown>) : null;
  return (
    <div className={cn('min-w-0 text-sm', className)}>
      <BidiWarning value={args} />
      {entries && entries.length === 0 ? (
        <p className="text-muted-foreground">No arguments.</p>
      ) : (
        <table className="w-full border-collapse">
          <caption className="sr-only">{label}</caption>
          <tbody>
            {(entries ?? [['value', args] as const]).map(([key, value]) => (
              <tr key={key} className="border-b border-border/60 last:border-0">
                <th scope="row" className="w-px py-1 pr-4 text-left align-top font-mono text-xs font-normal whitespace-nowrap text-muted-foreground">
                  <bdi>{revealBidi(key)}</bdi>
                </th>
                <td className="py-1 align-top font-mono text-xs break-all whitespace-pre-wrap">
                  <bdi>{formatValue(value)}</bdi>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <details className="group mt-1">
        <summary className="inline-flex cursor-pointer list-none items-center gap-1 rounded text-xs text-muted-foreground hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring [&::-webkit-details-marker]:hidden">
          <Braces className="size-3" aria-hidden />
          <span className="group-open:hidden">Show JSON</span>
          <span className="hidden group-open:inline">Hide JSON</span>
        </summary>
        <pre className="mt-1 max-h-64 overflow-auto rounded-md bg-muted p-2 font-mono text-xs">{formatJson(args)}</pre>
      </details>
    </div>
  );
}
