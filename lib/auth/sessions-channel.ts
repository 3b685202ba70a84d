import { notifications } from '@/lib/store/listen';
import type { InvalidationSource } from './session-cache';

/**
 * What the per-server caches of identities listen to (the session cache in session.ts and the key
 * cache in api-keys.ts): user ids announced on the `countersign_sessions` channel of this process's
 * LISTEN connection (lib/store/listen.ts) by the triggers on `sessions`, `users` and `api_keys`.
 * @returns the source a `SessionCache` subscribes to (it subscribes on first use)
 */
export function sessionsChannel(): InvalidationSource {
  return {
    subscribe: (listener) => notifications().subscribe('countersign_sessions', listener),
    onLost: (listener) => notifications().onLost(listener),
    get listening() {
      return notifications().listening;
    },
  };
}
