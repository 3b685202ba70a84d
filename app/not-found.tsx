import { NotFoundView } from '@/components/ui/not-found-view';

export default function NotFound() {
  return <NotFoundView message="This page does not exist, or it is not yours." back={{ href: '/', label: 'Back to your chats' }} />;
}
