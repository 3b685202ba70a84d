import { NotFoundView } from '@/components/ui/not-found-view';

/**
 * A thread the reviewer's read-only view does not show (HTTP 404; see its layout): unknown, deleted,
 * or without any approval or question to review.
 */
export default function ReviewThreadNotFound() {
  return (
    <NotFoundView
      message="This chat does not exist, or it has no approval or question for reviewers to read."
      back={{ href: '/inbox', label: 'Back to the inbox' }}
    />
  );
}
