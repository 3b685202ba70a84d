'use client';

import { RefreshCw, RotateCcw, TriangleExclamationPoint, X } from 'lucide-react';
import { Button } from './button';
import type { FriendlyError } from './api-error';

/**
 * A refused or failed request as a sentence with a next step (chat and inbox alike), with
 * Retry when sending again is the way forward, Refresh when fresh data would resolve it, and Dismiss.
 */
export function ErrorNotice({
  error,
  testId,
  onRetry,
  onRefresh,
  onDismiss,
}: {
  error: FriendlyError;
  testId: string;
  /** Shown (instead of nothing) when sending the same request again is the way forward. */
  onRetry?: () => void;
  /** Shown (instead of nothing) when refreshing is the way forward. */
  onRefresh?: () => void;
  onDismiss?: () => void;
}) {
  return (
    <div
      role="alert"
      data-testid={testId}
      data-code={error.code}
      className="flex items-start gap-3 rounded-lg border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm"
    >
      <TriangleExclamationPoint className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
      <div className="min-w-0 flex-1">
        <p className="font-medium">{error.message}</p>
        {error.issues.length > 0 ? (
          <ul className="mt-1 list-disc pl-5 text-muted-foreground">
            {error.issues.map((issue) => (
              <li key={issue}>{issue}</li>
            ))}
          </ul>
        ) : null}
        <p className="text-muted-foreground">{error.next}</p>
      </div>
      {onRetry ? (
        <Button size="sm" variant="outline" data-testid={`${testId}-retry`} onClick={onRetry}>
          <RotateCcw aria-hidden /> Retry
        </Button>
      ) : null}
      {onRefresh ? (
        <Button size="sm" variant="outline" onClick={onRefresh}>
          <RefreshCw aria-hidden /> Refresh
        </Button>
      ) : null}
      {onDismiss ? (
        <Button size="icon-sm" variant="ghost" aria-label="Dismiss error" onClick={onDismiss}>
          <X aria-hidden />
        </Button>
      ) : null}
    </div>
  );
}
