import type { Metadata } from 'next';
import { ApiKeysView } from '@/components/settings/api-keys-view';
import { listApiKeys } from '@/lib/auth/api-keys';
import { scopesForRole } from '@/lib/auth/scopes';
import { requirePageActor } from '@/lib/auth/session';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'API keys' };

export default async function ApiKeysPage() {
  const actor = await requirePageActor();
  return (
    <ApiKeysView
      initialKeys={await listApiKeys(actor.id)}
      allowedScopes={scopesForRole(actor.role)}
      viewer={{ id: actor.id, name: actor.name, role: actor.role }}
    />
  );
}
