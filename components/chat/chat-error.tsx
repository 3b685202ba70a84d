'use client';

import { RefreshCw, TriangleExclamationPoint, X } from 'lucide-react';
import { Button } from '@/components/ui/button';
import type { FriendlyError } from '@/components/ui/api-error';

/** A refused or failed request, as a sentence with a next step. */
export function ChatErrorBanner({ error, onDismiss, onRefresh }: { error: FriendlyError; onDismiss: () => void; onRefresh: () => void }) {
  const canRefresh = ['FINGERPRINT_MISMATCH', 'NO_SNAPSHOT_FOUND', 'TOOL_CALL_NOT_SUSPENDED'].includes(error.code);
  return (
    <div
      role="alert"
      data-testid="chat-error"
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
      {canRefresh ? (
        <Button size="sm" variant="outline" onClick={onRefresh}>
          <RefreshCw aria-hidden /> Refresh
        </Button>
      ) : null}
      <Button size="icon-sm" variant="ghost" aria-label="Dismiss error" onClick={onDismiss}>
        <X aria-hidden />
      </Button>
    </div>
  );
}
