-- Tamper-evident audit: every decision and every audit event is one link of a single hash chain.
-- content_hash = sha256 of the entry's canonical JSON (RFC 8785); hash = sha256(prev_hash || content_hash)
-- (both as bytes, stored as hex); chain_seq orders the links across both tables. The head row holds the
-- last link; writers update it in the statement that writes the entry, so its row lock serialises the
-- chain (it never forks). Entries written before this migration have no link (chain_seq IS NULL).
ALTER TABLE "decisions" ADD COLUMN "tool_name" TEXT;
ALTER TABLE "decisions" ADD COLUMN "chain_seq" BIGINT;
ALTER TABLE "decisions" ADD COLUMN "content_hash" TEXT;
ALTER TABLE "decisions" ADD COLUMN "prev_hash" TEXT;
ALTER TABLE "decisions" ADD COLUMN "hash" TEXT;
CREATE UNIQUE INDEX "decisions_chain_seq_key" ON "decisions"("chain_seq");

ALTER TABLE "audit_events" ADD COLUMN "chain_seq" BIGINT;
ALTER TABLE "audit_events" ADD COLUMN "content_hash" TEXT;
ALTER TABLE "audit_events" ADD COLUMN "prev_hash" TEXT;
ALTER TABLE "audit_events" ADD COLUMN "hash" TEXT;
CREATE UNIQUE INDEX "audit_events_chain_seq_key" ON "audit_events"("chain_seq");

CREATE TABLE "audit_chain_head" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "prev_hash" TEXT NOT NULL,

    CONSTRAINT "audit_chain_head_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "audit_chain_head_one_row" CHECK ("id" = 1)
);
INSERT INTO "audit_chain_head" ("id", "seq", "hash", "prev_hash") VALUES (1, 0, repeat('0', 64), repeat('0', 64));

-- The canonical JSON (RFC 8785: keys in code-unit order, no spaces, JSON string escapes) of a decision,
-- built in SQL because the hot decision statement resolves the call itself. Every value is a string,
-- a boolean or null, whose JSON text PostgreSQL writes exactly as RFC 8785 does; the JSON values
-- (edited args, answer) enter as data_hash, the sha256 of their RFC 8785 form computed by the app, and
-- the original args through fingerprint (sha256 of the canonical {toolName, args}).
CREATE FUNCTION "countersign_decision_content"(
    p_id TEXT, p_pending_call_id TEXT, p_run_id TEXT, p_tool_call_id TEXT, p_tool_name TEXT, p_kind TEXT,
    p_approved BOOLEAN, p_reason TEXT, p_actor_id TEXT, p_actor_role TEXT, p_fingerprint TEXT,
    p_edited_fingerprint TEXT, p_data_hash TEXT, p_created_at TIMESTAMPTZ
) RETURNS TEXT LANGUAGE sql STABLE AS $$
  SELECT '{"actorId":' || coalesce(to_json(p_actor_id)::text, 'null')
    || ',"actorRole":' || coalesce(to_json(p_actor_role)::text, 'null')
    || ',"approved":' || coalesce(to_json(p_approved)::text, 'null')
    || ',"createdAt":' || to_json(to_char(p_created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text
    || ',"dataHash":' || coalesce(to_json(p_data_hash)::text, 'null')
    || ',"editedFingerprint":' || coalesce(to_json(p_edited_fingerprint)::text, 'null')
    || ',"entry":"decision"'
    || ',"fingerprint":' || coalesce(to_json(p_fingerprint)::text, 'null')
    || ',"id":' || coalesce(to_json(p_id)::text, 'null')
    || ',"kind":' || coalesce(to_json(p_kind)::text, 'null')
    || ',"pendingCallId":' || coalesce(to_json(p_pending_call_id)::text, 'null')
    || ',"reason":' || coalesce(to_json(p_reason)::text, 'null')
    || ',"runId":' || coalesce(to_json(p_run_id)::text, 'null')
    || ',"toolCallId":' || coalesce(to_json(p_tool_call_id)::text, 'null')
    || ',"toolName":' || coalesce(to_json(p_tool_name)::text, 'null')
    || '}'
$$;

-- From now on every entry is a link: a write that found no chain head fails instead of writing an
-- unlinked entry (NOT VALID: older entries are not checked).
ALTER TABLE "decisions" ADD CONSTRAINT "decisions_chained" CHECK ("chain_seq" IS NOT NULL AND "hash" IS NOT NULL) NOT VALID;
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_chained" CHECK ("chain_seq" IS NOT NULL AND "hash" IS NOT NULL) NOT VALID;
