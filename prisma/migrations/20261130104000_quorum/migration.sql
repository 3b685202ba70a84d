-- Quorum approval: a call that needs N distinct reviewers keeps who approved it so far; the vote
-- that makes N claims the call like any single decision.
ALTER TABLE "pending_tool_calls" ADD COLUMN "quorum" INTEGER;
ALTER TABLE "pending_tool_calls" ADD COLUMN "approved_by" TEXT[] NOT NULL DEFAULT '{}';
