'use client';

import type { FriendlyError } from '@/components/ui/api-error';
import { ErrorNotice } from '@/components/ui/error-notice';

/** Errors where fetching the thread again is the next step. */
const REFRESHABLE = ['FINGERPRINT_MISMATCH', 'NO_SNAPSHOT_FOUND', 'TOOL_CALL_NOT_SUSPENDED'];

/**
 * A refused or failed request, as a sentence with a next step.
 * @param onRetry given when the viewer's message was not sent: sends it again
 */
export function ChatErrorBanner({
  error,
  onDismiss,
  onRefresh,
  onRetry,
}: {
  error: FriendlyError;
  onDismiss: () => void;
  onRefresh: () => void;
  onRetry?: () => void;
}) {
  return (
    <ErrorNotice
      error={error}
      testId="chat-error"
      onRetry={onRetry}
      onRefresh={REFRESHABLE.includes(error.code) ? onRefresh : undefined}
      onDismiss={onDismiss}
    />
  );
}
