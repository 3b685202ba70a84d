-- One turn of a thread at a time, and Stop (behaviour §5b).
--
-- `threads.running_run_id` is the thread's top-level run that is running now (null: none). A new
-- run is started only by the statement that sets it from null (its row lock serialises two sends,
-- and the condition is re-checked on the newest row version), so two turns of a thread never run
-- at once. The trigger below keeps it true on every status change of a top-level run, whichever
-- statement makes it (finish, pause, failure, crash recovery, a decision's continuation).
ALTER TABLE "threads" ADD COLUMN "running_run_id" TEXT;

-- When someone pressed Stop on the run (null: never, or not since it last paused). The segment that
-- holds the run's lease hears it by NOTIFY on `countersign_run_stop` (payload: the run id), and
-- at the latest at its next lease renewal.
ALTER TABLE "runs" ADD COLUMN "stop_requested_at" TIMESTAMPTZ(3);

UPDATE "threads" t SET "running_run_id" = (
  SELECT r."id" FROM "runs" r
  WHERE r."thread_id" = t."id" AND r."parent_run_id" IS NULL AND r."status" = 'running'
  ORDER BY r."started_at" DESC LIMIT 1
);

CREATE FUNCTION "thread_running_run"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."parent_run_id" IS NULL AND NEW."status" IS DISTINCT FROM OLD."status" THEN
    IF OLD."status" = 'running' THEN
      -- Another top-level run of the thread may still run (a decision continued a paused run while
      -- a new turn ran): the thread stays busy with it.
      UPDATE "threads" SET "running_run_id" = (
        SELECT r."id" FROM "runs" r
        WHERE r."thread_id" = NEW."thread_id" AND r."parent_run_id" IS NULL AND r."status" = 'running' AND r."id" <> NEW."id"
        ORDER BY r."started_at" LIMIT 1
      )
      WHERE "id" = NEW."thread_id" AND "running_run_id" = NEW."id";
    ELSIF NEW."status" = 'running' THEN
      UPDATE "threads" SET "running_run_id" = NEW."id" WHERE "id" = NEW."thread_id" AND "running_run_id" IS NULL;
    END IF;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "runs_thread_running" AFTER UPDATE OF "status" ON "runs"
  FOR EACH ROW EXECUTE FUNCTION "thread_running_run"();
