import type { Metadata } from 'next';
import { WebhooksView } from '@/components/admin/webhooks-view';
import { requirePageActor } from '@/lib/auth/session';
import { listWebhookDeliveries, listWebhookEndpoints } from '@/lib/webhooks/endpoints';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  const admin = await requirePageActor(['admin']);
  const [endpoints, log] = await Promise.all([listWebhookEndpoints(), listWebhookDeliveries({ limit: 50 })]);
  return <WebhooksView initialEndpoints={endpoints} initialLog={log} viewer={{ id: admin.id, name: admin.name, role: admin.role }} />;
}
