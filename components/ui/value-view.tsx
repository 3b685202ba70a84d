import { cn } from './cn';

/** Renders a scalar in words: text as is, numbers and booleans as written, null as "none". */
function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

function isScalar(value: unknown): boolean {
  return value === null || value === undefined || typeof value !== 'object';
}

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

/**
 * An error text as a sentence: JSON in it (an error object, a list of issues) becomes
 * "field: message" lines; anything else is kept as written.
 */
export function readableErrorText(text: string | undefined): string {
  const raw = (text ?? '').trim();
  if (!raw) return 'The tool failed without saying why.';
  if (!/^[[{]/.test(raw)) return raw;
  try {
    return describeJsonError(JSON.parse(raw));
  } catch {
    return raw;
  }
}

function describeJsonError(value: unknown): string {
  if (Array.isArray(value)) return value.map(describeJsonError).filter(Boolean).join('\n');
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const inner = record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : record;
    const message = typeof inner.message === 'string' ? inner.message : undefined;
    const path = Array.isArray(inner.path) && inner.path.length > 0 ? `${inner.path.join('.')}: ` : '';
    if (message) return `${path}${message}`;
    return Object.entries(inner)
      .map(([key, item]) => `${key}: ${isScalar(item) ? scalar(item) : describeJsonError(item)}`)
      .join('\n');
  }
  return scalar(value);
}

/**
 * A one-line summary of any JSON value, never JSON: "found: yes, orders: 2 items, customer: 4 fields".
 * @param max cut to about this many characters
 */
export function summarizeValue(value: unknown, max = 160): string {
  const part = (item: unknown): string => {
    if (isScalar(item)) return scalar(item);
    if (Array.isArray(item)) return item.every(isScalar) ? item.map(scalar).join(', ') : `${item.length} ${item.length === 1 ? 'item' : 'items'}`;
    const size = Object.keys(item as object).length;
    return `${size} ${size === 1 ? 'field' : 'fields'}`;
  };
  const text =
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>)
          .map(([key, item]) => `${key}: ${part(item)}`)
          .join(', ')
      : part(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
