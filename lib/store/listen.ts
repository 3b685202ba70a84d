import 'server-only';
import pg from 'pg';
import { env } from '@/lib/env';

type Listener = (payload: string) => void;

const CHANNELS = ['countersign_run_events', 'countersign_runs', 'countersign_pending', 'countersign_policies', 'countersign_sessions', 'countersign_run_stop'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * One LISTEN connection per process, shared by every subscriber (PostgreSQL NOTIFY is what lets a
 * chat open on one server see a decision made on another). Reconnects after a connection loss.
 */
export class Notifications {
  /** @param databaseUrl PostgreSQL URL to listen on (default: `DATABASE_URL`) */
  constructor(private readonly databaseUrl?: string) {}

  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly listeners = new Map<Channel, Set<Listener>>();
  private readonly lostListeners = new Set<() => void>();
  private closed = false;

  private async connect() {
    const client = new pg.Client({ connectionString: this.databaseUrl ?? env().DATABASE_URL });
    client.on('notification', (message) => {
      for (const listener of this.listeners.get(message.channel as Channel) ?? []) listener(message.payload ?? '');
    });
    let gone = false;
    const lost = (reason: string) => {
      if (gone || this.closed) return;
      gone = true;
      console.error('[notify] connection lost:', reason);
      this.client = null;
      this.connecting = null;
      client.end().catch(() => {});
      // Notifications sent until the new connection listens are never delivered: caches that rely
      // on them must forget what they hold now.
      for (const listener of this.lostListeners) listener();
      setTimeout(() => void this.ensure().catch(() => {}), 1_000).unref();
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('closed'));
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

  /** Closes the LISTEN connection for good (tests); subscribers hear nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    this.connecting = null;
    this.listeners.clear();
    this.lostListeners.clear();
    await client?.end();
  }

  /** Whether the LISTEN connection is up now (notifications sent now will be delivered). */
  get listening(): boolean {
    return this.client !== null;
  }

  /**
   * Calls `listener` whenever the LISTEN connection is lost (notifications may have been missed
   * since), until the returned function is called.
   */
  onLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
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
