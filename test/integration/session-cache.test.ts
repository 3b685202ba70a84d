import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionCache, type CachedSession } from '../../lib/auth/session-cache';
import { Notifications } from '../../lib/store/listen';
import { databaseUrl } from '../support/harness';

/**
 * The session cache of every server (lib/auth/session-cache.ts) against real PostgreSQL: two
 * "servers" (each its own cache and LISTEN connection) drop a person's cached sessions when the
 * database triggers announce a change of their sessions or account, whoever made it.
 */
describe('session cache invalidated over NOTIFY', () => {
  const db = new pg.Client({ connectionString: databaseUrl() });
  const userId = `cache-user-${crypto.randomUUID()}`;
  const token = `token-${crypto.randomUUID()}`;
  const servers: { notifications: Notifications; cache: SessionCache<{ id: string; role: string }> }[] = [];
  let loads = 0;

  /** What better-auth's getSession reads, reduced to the columns the actor needs. */
  const load = async (): Promise<CachedSession<{ id: string; role: string }> | null> => {
    loads++;
    const { rows } = await db.query<{ id: string; role: string; expires_at: Date }>(
      `SELECT u.id, u.role, s.expires_at FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.token = $1 AND s.expires_at > now() AND NOT u.banned`,
      [token],
    );
    const [row] = rows;
    return row ? { value: { id: row.id, role: row.role }, userId: row.id, expiresAt: row.expires_at.getTime() } : null;
  };

  let startedAt: Date;

  beforeAll(async () => {
    await db.connect();
    startedAt = (await db.query<{ now: Date }>('SELECT now()')).rows[0].now;
    await db.query(`INSERT INTO users (id, name, email, role) VALUES ($1, 'Cache', $2, 'reviewer')`, [userId, `${userId}@example.com`]);
    await db.query(`INSERT INTO sessions (id, token, user_id, expires_at) VALUES ($1, $2, $3, now() + interval '1 day')`, [`s-${token}`, token, userId]);
    for (let i = 0; i < 2; i++) {
      const notifications = new Notifications(databaseUrl());
      const cache = new SessionCache<{ id: string; role: string }>(
        {
          subscribe: (listener) => notifications.subscribe('countersign_sessions', listener),
          onLost: (listener) => notifications.onLost(listener),
          get listening() {
            return notifications.listening;
          },
        },
        { maxAgeMs: 60_000, maxEntries: 100 },
      );
      servers.push({ notifications, cache });
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map(({ notifications }) => notifications.close()));
    await db.query('DELETE FROM users WHERE id = $1', [userId]);
    await db.end();
  });

  const resolveOn = (server: number) => servers[server].cache.resolve(`signed-${token}`, load);

  it('answers from memory once checked, and drops the session on both servers when the role changes, the account is deactivated or the session is deleted', async () => {
    expect(await resolveOn(0)).toEqual({ id: userId, role: 'reviewer' });
    expect(await resolveOn(1)).toEqual({ id: userId, role: 'reviewer' });
    loads = 0;
    expect(await resolveOn(0)).toEqual({ id: userId, role: 'reviewer' });
    expect(await resolveOn(1)).toEqual({ id: userId, role: 'reviewer' });
    expect(loads).toBe(0);

    // A role change by anyone (here plain SQL, as no code path is special): both servers forget it.
    await db.query(`UPDATE users SET role = 'user' WHERE id = $1`, [userId]);
    await expect.poll(() => servers.map(({ cache }) => cache.size)).toEqual([0, 0]);
    expect(await resolveOn(1)).toEqual({ id: userId, role: 'user' });
    expect(loads).toBe(1);

    // Deactivation: refused afterwards.
    expect(await resolveOn(0)).toEqual({ id: userId, role: 'user' });
    await db.query(`UPDATE users SET banned = true WHERE id = $1`, [userId]);
    await expect.poll(() => servers.map(({ cache }) => cache.size)).toEqual([0, 0]);
    expect(await resolveOn(0)).toBeNull();
    expect(await resolveOn(1)).toBeNull();

    // Reactivated and cached again; then the session is deleted (sign-out, revocation).
    await db.query(`UPDATE users SET banned = false WHERE id = $1`, [userId]);
    expect(await resolveOn(0)).toEqual({ id: userId, role: 'user' });
    expect(await resolveOn(1)).toEqual({ id: userId, role: 'user' });
    await db.query(`DELETE FROM sessions WHERE token = $1`, [token]);
    await expect.poll(() => servers.map(({ cache }) => cache.size)).toEqual([0, 0]);
    expect(await resolveOn(0)).toBeNull();
    expect(await resolveOn(1)).toBeNull();
  });

  it('keeps nothing read before a revocation that arrived while it was being read, and nothing once the LISTEN connection is lost', async () => {
    await db.query(`INSERT INTO sessions (id, token, user_id, expires_at) VALUES ($1, $2, $3, now() + interval '1 day') ON CONFLICT DO NOTHING`, [
      `s-${token}`,
      token,
      userId,
    ]);
    const { cache, notifications } = servers[0];
    let announced = false;
    await notifications.subscribe('countersign_sessions', (id) => {
      if (id === userId) announced = true;
    });
    // The session is read, then changed before the read's result is stored: it must not be kept.
    const value = await cache.resolve(`race-${token}`, async () => {
      const loaded = await load();
      await db.query(`UPDATE sessions SET updated_at = now() WHERE token = $1`, [token]);
      await expect.poll(() => announced).toBe(true);
      return loaded;
    });
    expect(value).toEqual({ id: userId, role: 'user' });
    expect(cache.size).toBe(0);

    // Cached, then the LISTEN connection dies: everything is dropped (announcements may be missed).
    await cache.resolve(`signed-${token}`, load);
    expect(cache.size).toBe(1);
    // This file's LISTEN connections (both servers'), not those of anything else on the database.
    const { rows } = await db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %' AND backend_start >= $1 AND pid <> pg_backend_pid()`,
      [startedAt],
    );
    expect(rows.length).toBe(2);
    await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1)', [rows.map((row) => row.pid)]);
    await expect.poll(() => cache.size).toBe(0);
    // While it is down (it reconnects after a second), nothing is cached: every request reads the session.
    expect(notifications.listening).toBe(false);
    loads = 0;
    await cache.resolve(`signed-${token}`, load);
    await cache.resolve(`signed-${token}`, load);
    expect(loads).toBe(2);
    // Back up: cached again.
    await expect.poll(() => notifications.listening, { timeout: 10_000 }).toBe(true);
    loads = 0;
    await cache.resolve(`signed-${token}`, load);
    await cache.resolve(`signed-${token}`, load);
    expect(loads).toBe(1);
  });
});
