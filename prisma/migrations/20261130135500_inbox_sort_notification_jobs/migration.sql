-- The inbox sorted by deadline (soonest first, calls without one last, oldest first among those),
-- keyset-paged on (deadline key, created_at, id): the key is never NULL, so a row comparison is an
-- index condition of this expression index. Oldest-first reads the (status, created_at DESC, id DESC)
-- index backwards. The query writes the expression exactly so (lib/inbox/queries.ts).
CREATE INDEX "pending_tool_calls_status_deadline_key_created_at_id_idx" ON "pending_tool_calls"
  ("status", (coalesce("deadline_at", '9999-12-31 00:00:00+00'::timestamptz)), "created_at", "id");

-- A call only a reviewer may approve gets its reviewer email through the job queue: the job is added
-- by this trigger in the statement that inserts the call, so it commits with it — a server that dies
-- right after the pause still has its mail sent by whichever worker runs (and retried when the mail
-- server fails). The handler (channel `reviewer-email`, lib/notify/reviewer-jobs.ts) sends once per
-- (call, kind) through the `notification_deliveries` claim and schedules the call's overdue mail.
-- It is due 30 s later: the server that paused the call tries first, right after its commit.
CREATE FUNCTION "schedule_review_notification"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."status" = 'pending' AND NEW."kind" = 'approval' AND NEW."approvers" = 'reviewer'
     AND to_regnamespace('graphile_worker') IS NOT NULL THEN
    PERFORM graphile_worker.add_job(
      'notification',
      payload => json_build_object('channel', 'reviewer-email', 'payload', json_build_object('kind', 'needs-review', 'pendingCallId', NEW."id")),
      run_at => now() + interval '30 seconds',
      max_attempts => 10,
      job_key => 'reviewer-email:needs-review:' || NEW."id",
      job_key_mode => 'preserve_run_at'
    );
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "pending_tool_calls_review_notification" AFTER INSERT ON "pending_tool_calls"
  FOR EACH ROW EXECUTE FUNCTION "schedule_review_notification"();
