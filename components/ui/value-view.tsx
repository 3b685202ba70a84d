import { cn } from './cn';
import { isScalar, scalar } from './readable';

/**
 * Any JSON value as readable text, never as JSON: objects become "key  value" rows, lists of
 * scalars a comma-separated line, lists of objects one block per item, nested to any depth.
 */
export function ValueView({ value, className }: { value: unknown; className?: string }) {
  if (isScalar(value)) return <span className={cn('break-words whitespace-pre-wrap', className)}>{scalar(value)}</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className={cn('text-muted-foreground', className)}>none</span>;
    if (value.every(isScalar)) return <span className={cn('break-words', className)}>{value.map(scalar).join(', ')}</span>;
    return (
      <ol className={cn('flex flex-col gap-1', className)}>
        {value.map((item, index) => (
          <li key={index} className="rounded-md border border-border/60 px-2 py-1">
            <ValueView value={item} />
          </li>
        ))}
      </ol>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return <span className={cn('text-muted-foreground', className)}>none</span>;
  return (
    <dl className={cn('grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5', className)}>
      {entries.map(([key, item]) => (
        <div key={key} className="contents">
          <dt className="text-muted-foreground">{key}</dt>
          <dd className="min-w-0">
            <ValueView value={item} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
