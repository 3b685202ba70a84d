-- Insertion order of pending calls. The calls of one step are written in one statement and share
-- created_at; seq keeps the order the model made them in (listings show them in that order).
ALTER TABLE "pending_tool_calls" ADD COLUMN "seq" BIGSERIAL NOT NULL;
