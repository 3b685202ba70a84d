import { formatValue } from '@/lib/present/describe';

/** An answer given to a question: "city: Paris" lines for objects, the value otherwise. */
export function AnswerView({ value }: { value: unknown }) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    return (
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm">
        {entries.map(([key, item]) => (
          <div key={key} className="contents">
            <dt className="text-muted-foreground">{key}</dt>
            <dd className="font-medium break-words">{formatValue(item)}</dd>
          </div>
        ))}
      </dl>
    );
  }
  return <p className="text-sm font-medium">{value === undefined ? 'No answer recorded.' : formatValue(value)}</p>;
}
