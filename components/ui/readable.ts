/** Plain-language renderings of JSON values and error texts (pure; server and browser). */

/** A scalar in words: text as is, numbers and booleans as written, null as "none". */
export function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** null, undefined, or not an object. */
export function isScalar(value: unknown): boolean {
  return value === null || value === undefined || typeof value !== 'object';
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
