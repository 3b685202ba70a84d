'use client';

import type { FriendlyError } from '@/components/ui/api-error';
import { ErrorNotice } from '@/components/ui/error-notice';

/** Errors where fetching the thread again is the next step. */
const REFRESHABLE = ['FINGERPRINT_MISMATCH', 'NO_SNAPSHOT_FOUND', 'TOOL_CALL_NOT_SUSPENDED'];

/** A refused or failed request, as a sentence with a next step. */
export function ChatErrorBanner({ error, onDismiss, onRefresh }: { error: FriendlyError; onDismiss: () => void; onRefresh: () => void }) {
  return (
    <ErrorNotice error={error} testId="chat-error" onRefresh={REFRESHABLE.includes(error.code) ? onRefresh : undefined} onDismiss={onDismiss} />
  );
}
