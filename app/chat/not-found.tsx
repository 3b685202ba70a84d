import { NotFoundView } from '@/components/ui/not-found-view';

/** A chat that is someone else's, deleted, or has an id the chat never makes (HTTP 404; see the chat's layout). */
export default function ChatNotFound() {
  return <NotFoundView message="This chat does not exist, was deleted, or is not yours." back={{ href: '/', label: 'Back to your chats' }} />;
}
