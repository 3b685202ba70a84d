/** Summaries and tables for `npm run bench`. Pure functions, no I/O. */

/** p50 / p95 of a set of samples (ms, or statements), with how many samples they came from. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  min: number;
  max: number;
  mean: number;
}

/**
 * The q-quantile (0 ≤ q ≤ 1) of `samples` by linear interpolation between closest ranks
 * (the "R-7" rule that spreadsheets and NumPy use by default).
 * @throws when `samples` is empty
 */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new Error('quantile of no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

/** p50, p95, min, max and mean of `samples`; null when there are none. */
export function summarise(samples: readonly number[]): Summary | null {
  if (samples.length === 0) return null;
  return {
    n: samples.length,
    p50: quantile(samples, 0.5),
    p95: quantile(samples, 0.95),
    min: Math.min(...samples),
    max: Math.max(...samples),
    mean: samples.reduce((sum, value) => sum + value, 0) / samples.length,
  };
}

/** A number for a table cell: one decimal below 100, none above; `–` when missing. */
export function fmt(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return Math.abs(value) < 100 ? value.toFixed(1) : value.toFixed(0);
}

/** `p50 / p95` of a summary for a table cell. */
export function fmtSummary(summary: Summary | null | undefined): string {
  return summary ? `${fmt(summary.p50)} / ${fmt(summary.p95)}` : '–';
}

/** `a / b` as `0.42×`; `–` when either is missing or b is 0. */
export function fmtRatio(a: number | null | undefined, b: number | null | undefined): string {
  if (a === null || a === undefined || b === null || b === undefined || b === 0) return '–';
  return `${(a / b).toFixed(2)}×`;
}

/** A markdown table: one header row, then the rows (cells are escaped for `|`). */
export function markdownTable(header: string[], rows: string[][]): string {
  const escape = (cell: string) => cell.replaceAll('|', '\\|');
  return [
    `| ${header.map(escape).join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
  ].join('\n');
}
