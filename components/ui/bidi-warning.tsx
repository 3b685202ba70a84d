import { TriangleAlert } from 'lucide-react';
import { hasBidiControls } from '@/lib/present/describe';

/**
 * A warning when `value` (a call's arguments, a question, an answer) contains Unicode direction
 * controls, which can make text read differently from what it is; the values themselves show the
 * controls as markers such as ⟪U+202E⟫.
 */
export function BidiWarning({ value, compact = false }: { value: unknown; compact?: boolean }) {
  if (!hasBidiControls(value)) return null;
  return (
    <span
      data-testid="bidi-warning"
      role="note"
      className="inline-flex items-center gap-1 rounded-md bg-destructive/10 px-1.5 py-0.5 text-xs font-medium text-destructive"
    >
      <TriangleAlert className="size-3 shrink-0" aria-hidden />
      {compact ? 'Hidden direction characters' : 'Contains hidden text-direction characters (shown as ⟪U+…⟫) — read it carefully.'}
    </span>
  );
}
