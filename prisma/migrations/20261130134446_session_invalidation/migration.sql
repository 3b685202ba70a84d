-- Every server keeps the sessions it has checked in memory (lib/auth/session-cache.ts) instead of reading
-- the session and its user on each request. Whatever ends or changes a session or an account — sign-out,
-- revoking sessions, deactivation (ban), a role or password change, expiry refresh, any path, better-auth's
-- own included — announces the user's id on one channel, and every server drops that person's cached
-- sessions when the notification arrives. Triggers, so no code path can forget it.
CREATE FUNCTION "countersign_notify_session_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('countersign_sessions', OLD."id");
  ELSE
    PERFORM pg_notify('countersign_sessions', OLD."user_id");
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "sessions_notify_change" AFTER UPDATE OR DELETE ON "sessions"
  FOR EACH ROW EXECUTE FUNCTION "countersign_notify_session_change"();
CREATE TRIGGER "users_notify_change" AFTER UPDATE OR DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION "countersign_notify_session_change"();
