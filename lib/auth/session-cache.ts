/**
 * An in-process cache of checked sessions, so a signed-in request does not read its session and
 * user from PostgreSQL each time.
 *
 * Revocation still reaches every server: a database trigger announces the user id
 * on the `countersign_sessions` NOTIFY channel whenever one of their sessions is updated or deleted
 * (sign-out, revoking sessions, a password change, deactivation) or their account row changes (role,
 * deactivation, name), whichever code path — better-auth's own included — made the change. Each
 * server drops that person's cached sessions when the notification arrives, a few milliseconds after
 * the change commits (a request inside that window is still answered from the cache). Entries are
 * kept only while the LISTEN connection is up: when it is lost the
 * whole cache is dropped (notifications may have been missed) and nothing is cached until it is back.
 * As a safety net an entry also lives at most `maxAgeMs` and never past the session's own expiry.
 *
 * The key is the session cookie's full signed value, stored only after better-auth has verified it,
 * so a forged or altered cookie never matches an entry.
 */

/** What a cached session resolves to. */
export interface CachedSession<T> {
  /** The value the request resolves to (the actor). */
  value: T;
  /** Whose session it is: a notification with this id drops it. */
  userId: string;
  /** When the session itself expires, in ms since the epoch. */
  expiresAt: number;
}

/** The notification side the cache relies on (lib/store/listen.ts in the app). */
export interface InvalidationSource {
  /** Subscribes to the user ids announced on the sessions channel. */
  subscribe(listener: (userId: string) => void): Promise<unknown>;
  /** Called when the connection is lost (announcements may have been missed). */
  onLost(listener: () => void): unknown;
  /** Whether announcements made now will be delivered. */
  readonly listening: boolean;
}

export interface SessionCacheOptions {
  /** Longest an entry is used, in ms (a safety net; invalidation is by notification). */
  maxAgeMs: number;
  /** Most entries kept; the oldest are dropped first. */
  maxEntries: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

interface Entry<T> extends CachedSession<T> {
  cachedUntil: number;
}

/**
 * The cache itself, one per server process (see the top of this file for when entries go).
 * `resolve` answers a cookie from memory or runs the lookup and keeps its result while the LISTEN
 * connection is up; `invalidateUser(userId)` drops a person's entries.
 */
export class SessionCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Bumped on every invalidation: a lookup that started before one must not store its result. */
  private generation = 0;
  private subscribed: Promise<boolean> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly source: InvalidationSource,
    private readonly options: SessionCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Starts listening (once); resolves false when the LISTEN connection cannot be opened. */
  private listen(): Promise<boolean> {
    this.subscribed ??= (async () => {
      this.source.onLost(() => this.clear());
      await this.source.subscribe((userId) => this.invalidateUser(userId));
      return true;
    })().catch((error: unknown) => {
      console.error('[sessions] cannot listen for revocations; sessions are read on every request:', error instanceof Error ? error.message : error);
      this.subscribed = null;
      return false;
    });
    return this.subscribed;
  }

  /** Drops every cached session of `userId`. */
  invalidateUser(userId: string): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (entry.userId === userId) this.entries.delete(key);
  }

  /** Drops everything. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** How many sessions are cached. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The session behind `key` (the signed cookie value): from the cache when it holds a live entry,
   * else from `load` (which verifies it), cached when `load` found one and nothing was revoked
   * meanwhile. `load` returning null (no such session) is not cached.
   */
  async resolve(key: string, load: () => Promise<CachedSession<T> | null>): Promise<T | null> {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.cachedUntil > now && hit.expiresAt > now && this.source.listening) return hit.value;
      this.entries.delete(key);
    }
    const listening = await this.listen();
    const generation = this.generation;
    const loaded = await load();
    if (!loaded) return null;
    // Only what was read after the last invalidation, while announcements are delivered, is kept.
    if (listening && this.source.listening && generation === this.generation) {
      if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { ...loaded, cachedUntil: this.now() + this.options.maxAgeMs });
    }
    return loaded.value;
  }
}
