-- The inbox's search box searches every waiting call on the server (lib/inbox/queries.ts
-- searchCondition): each word a case-insensitive substring of the tool, the agent or the arguments,
-- with a trigram index on exactly that expression for the planner to use where a word is rare.
-- pg_trgm ships with PostgreSQL (contrib) and with the embedded one.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "pending_tool_calls_search_trgm_idx" ON "pending_tool_calls"
  USING gin ((lower("tool_name" || ' ' || "agent_id" || ' ' || "args"::text)) gin_trgm_ops);

-- Who decided a call, for a call that left an open inbox and for a decided call opened from Done
-- (lib/inbox/outcome.ts): the decisions of one pending call, newest first.
CREATE INDEX "decisions_pending_call_id_created_at_idx" ON "decisions" ("pending_call_id", "created_at" DESC);
