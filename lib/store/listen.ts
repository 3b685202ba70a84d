import 'server-only';
import pg from 'pg';
import { env } from '@/lib/env';

type Listener = (payload: string) => void;

const CHANNELS = ['countersign_run_events', 'countersign_runs', 'countersign_pending', 'countersign_policies'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * One LISTEN connection per process, shared by every subscriber (PostgreSQL NOTIFY is what lets a
 * chat open on one server see a decision made on another). Reconnects after a connection loss.
 */
class Notifications {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly listeners = new Map<Channel, Set<Listener>>();

  private async connect() {
    const client = new pg.Client({ connectionString: env().DATABASE_URL });
    client.on('notification', (message) => {
      for (const listener of this.listeners.get(message.channel as Channel) ?? []) listener(message.payload ?? '');
    });
    client.on('error', (error) => {
      console.error('[notify] connection lost:', error.message);
      this.client = null;
      this.connecting = null;
      client.end().catch(() => {});
      setTimeout(() => void this.ensure().catch(() => {}), 1_000).unref();
    });
    await client.connect();
    for (const channel of CHANNELS) await client.query(`LISTEN ${channel}`);
    this.client = client;
  }

  ensure(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().catch((error) => {
      this.connecting = null;
      throw error;
    });
    return this.connecting;
  }

  /**
   * Calls `listener` with each NOTIFY payload on `channel` until the returned function is called.
   * @throws when the LISTEN connection cannot be opened
   */
  async subscribe(channel: Channel, listener: Listener): Promise<() => void> {
    await this.ensure();
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }
}

const globalForNotify = globalThis as unknown as { countersignNotifications?: Notifications };

/** The process-wide NOTIFY listener. */
export function notifications(): Notifications {
  globalForNotify.countersignNotifications ??= new Notifications();
  return globalForNotify.countersignNotifications;
}
