-- Inbox assignment: who is working on a pending call (a reviewer claims it, releases it, or assigns it to someone).
ALTER TABLE "pending_tool_calls" ADD COLUMN "assigned_to" TEXT;
ALTER TABLE "pending_tool_calls" ADD COLUMN "assigned_at" TIMESTAMPTZ(3);
CREATE INDEX "pending_tool_calls_assigned_idx" ON "pending_tool_calls"("assigned_to", "created_at" DESC, "id" DESC) WHERE "status" = 'pending';

-- What people did on a call besides deciding it: assignments, notes and questions to the requester.
-- Append-only like the decisions, and listed with them in the audit.
CREATE TABLE "call_activity" (
    "id" TEXT NOT NULL,
    "pending_call_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "actor_id" TEXT NOT NULL,
    "actor_role" TEXT NOT NULL,
    "assignee" TEXT,
    "body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "call_activity_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "call_activity_kind_check" CHECK ("kind" IN ('assigned', 'released', 'comment', 'question'))
);
CREATE INDEX "call_activity_pending_call_id_created_at_idx" ON "call_activity"("pending_call_id", "created_at");
CREATE INDEX "call_activity_created_at_id_idx" ON "call_activity"("created_at" DESC, "id" DESC);
ALTER TABLE "call_activity" ADD CONSTRAINT "call_activity_pending_call_id_fkey" FOREIGN KEY ("pending_call_id") REFERENCES "pending_tool_calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE TRIGGER "call_activity_no_update_delete" BEFORE UPDATE OR DELETE ON "call_activity"
  FOR EACH ROW EXECUTE FUNCTION "decisions_append_only"();
