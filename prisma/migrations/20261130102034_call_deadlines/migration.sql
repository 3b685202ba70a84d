-- Deadlines and escalation of pending calls, run by the job queue (graphile-worker).
ALTER TABLE "pending_tool_calls"
  ADD COLUMN "deadline_at" TIMESTAMPTZ(3),
  ADD COLUMN "deadline_action" TEXT,
  ADD COLUMN "deadline_reason" TEXT,
  ADD COLUMN "escalated_at" TIMESTAMPTZ(3),
  ADD COLUMN "assigned_to_role" TEXT,
  ADD CONSTRAINT "pending_tool_calls_deadline_action_check" CHECK ("deadline_action" IN ('decline', 'escalate')),
  ADD CONSTRAINT "pending_tool_calls_deadline_check" CHECK (("deadline_at" IS NULL) = ("deadline_action" IS NULL));

-- Calls waiting on a deadline, for the sweep's look for overdue ones.
CREATE INDEX "pending_tool_calls_deadline_at_idx" ON "pending_tool_calls"("deadline_at") WHERE "status" = 'pending' AND "deadline_at" IS NOT NULL;

-- Whoever sets a deadline (a tool's code, a data policy, an escalation extending it) gets its job:
-- one `call-deadline` job per call (job_key), due at the deadline, committed with the row. Without
-- the job queue's schema (a database nobody ran `npm run db:migrate` on since), the recovery sweep
-- still finds overdue calls.
CREATE FUNCTION "schedule_call_deadline"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."status" = 'pending' AND NEW."deadline_at" IS NOT NULL
     AND (TG_OP = 'INSERT' OR NEW."deadline_at" IS DISTINCT FROM OLD."deadline_at")
     AND to_regnamespace('graphile_worker') IS NOT NULL THEN
    PERFORM graphile_worker.add_job(
      'call-deadline',
      payload => json_build_object('pendingCallId', NEW."id"),
      run_at => NEW."deadline_at",
      job_key => 'call-deadline:' || NEW."id",
      job_key_mode => 'replace'
    );
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "pending_tool_calls_deadline" AFTER INSERT OR UPDATE OF "deadline_at", "status" ON "pending_tool_calls"
  FOR EACH ROW EXECUTE FUNCTION "schedule_call_deadline"();

-- Live updates also when a call is escalated or its deadline set or moved (its status stays `pending`).
CREATE OR REPLACE FUNCTION "notify_pending_tool_calls"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW."status" IS DISTINCT FROM OLD."status" OR NEW."escalated_at" IS DISTINCT FROM OLD."escalated_at"
     OR NEW."deadline_at" IS DISTINCT FROM OLD."deadline_at" THEN
    PERFORM pg_notify('countersign_pending', json_build_object(
      'id', NEW."id", 'rootRunId', NEW."root_run_id", 'threadId', NEW."thread_id", 'status', NEW."status")::text);
  END IF;
  RETURN NULL;
END;
$$;
