'use client';

import { KeyRound, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import type { FriendlyError } from '@/components/ui/api-error';
import { sendJson } from '@/components/ui/send-json';
import { LocalTime, RelativeTime } from '@/components/ui/time';
import type { ApiKeySummary } from '@/lib/auth/api-keys';

/**
 * One person's API keys on /admin/users: a button with the count of active keys that opens the list
 * (GET /api/admin/users/{id}/keys), each active key with a Revoke button (DELETE …/keys/{keyId}).
 * @param onActiveKeys called with the new count of active keys after a revocation
 */
export function UserKeys({
  user,
  onActiveKeys,
  onError,
}: {
  user: { id: string; name: string; activeKeys: number };
  onActiveKeys: (count: number) => void;
  onError: (error: FriendlyError) => void;
}) {
  const [keys, setKeys] = useState<ApiKeySummary[] | null>(null);
  const [open, setOpen] = useState(false);
  const base = `/api/admin/users/${encodeURIComponent(user.id)}/keys`;
  const listId = `keys-of-${user.id}`;

  async function toggle() {
    if (open) return setOpen(false);
    const outcome = await sendJson<{ keys: ApiKeySummary[] }>(base, { method: 'GET' });
    if (!outcome.ok) return onError(outcome.error);
    setKeys(outcome.data.keys);
    setOpen(true);
  }

  async function revoke(key: ApiKeySummary) {
    const outcome = await sendJson<{ key: ApiKeySummary }>(`${base}/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
    if (!outcome.ok) return onError(outcome.error);
    const next = (keys ?? []).map((item) => (item.id === key.id ? outcome.data.key : item));
    setKeys(next);
    onActiveKeys(next.filter((item) => item.status === 'active').length);
    toast(`Revoked “${key.name}” of ${user.name}`);
  }

  return (
    <div className="flex flex-col gap-1">
      <Button
        size="sm"
        variant="ghost"
        className="h-7 self-start px-1 text-xs text-muted-foreground"
        aria-expanded={open}
        aria-controls={listId}
        data-testid="user-keys-toggle"
        onClick={() => void toggle()}
      >
        <KeyRound className="size-3" aria-hidden /> {user.activeKeys} API {user.activeKeys === 1 ? 'key' : 'keys'}
      </Button>
      {open && keys ? (
        <ul id={listId} data-testid="user-keys" className="flex flex-col gap-1 text-xs">
          {keys.map((key) => (
            <li key={key.id} data-testid="user-key-row" data-status={key.status} className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{key.name}</span>
              <code className="text-muted-foreground">{key.start ? `${key.start}…` : ''}</code>
              <Badge tone={key.status === 'active' ? 'success' : key.status === 'revoked' ? 'danger' : 'neutral'}>{key.status}</Badge>
              <span className="text-muted-foreground">{key.scopes.join(', ')}</span>
              <span className="text-muted-foreground">
                made <LocalTime iso={key.createdAt} />, last used {key.lastUsedAt ? <RelativeTime iso={key.lastUsedAt} /> : 'never'}
              </span>
              {key.status === 'active' ? (
                <Button size="sm" variant="outline" className="h-7" aria-label={`Revoke ${key.name} of ${user.name}`} onClick={() => void revoke(key)}>
                  <Trash2 aria-hidden /> Revoke
                </Button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
