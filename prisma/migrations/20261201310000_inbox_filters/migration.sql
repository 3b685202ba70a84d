-- Server-side inbox filters: a tool filter on the waiting list is an index condition too, and so is
-- the requester filter (its subquery yields the few ids whose name or email match).
CREATE INDEX "pending_tool_calls_status_tool_name_created_at_id_idx" ON "pending_tool_calls" ("status", "tool_name", "created_at" DESC, "id" DESC);
CREATE INDEX "pending_tool_calls_status_requested_by_created_at_id_idx" ON "pending_tool_calls" ("status", "requested_by", "created_at" DESC, "id" DESC);
