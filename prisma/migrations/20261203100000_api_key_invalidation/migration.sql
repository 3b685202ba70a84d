-- Every server keeps the API keys it has checked in memory (lib/auth/api-keys.ts, keyCache) instead of
-- asking better-auth and reading the key's owner on each request. Whatever revokes, deletes or changes
-- a key — its scopes, expiry, limit or owner — announces the owner's id on the sessions channel, and
-- every server drops that person's cached keys (and sessions) when the notification arrives. Changes of
-- the owner's account are announced by the users trigger already. The key's last-used time and counters
-- are not in the column list: writing them on use must not empty the cache.
CREATE FUNCTION "countersign_notify_api_key_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('countersign_sessions', OLD."reference_id");
  IF TG_OP = 'UPDATE' AND NEW."reference_id" IS DISTINCT FROM OLD."reference_id" THEN
    PERFORM pg_notify('countersign_sessions', NEW."reference_id");
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "api_keys_notify_change"
  AFTER UPDATE OF "enabled", "permissions", "expires_at", "rate_limit_max", "rate_limit_enabled", "remaining", "key", "reference_id"
  OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "countersign_notify_api_key_change"();
