-- Signed webhooks (Standard Webhooks): endpoints admins register, the events the database emits
-- when a call starts waiting, is decided or expires and when a run finishes, and one delivery per
-- (event, endpoint) sent by the job queue with retries.

CREATE TABLE "webhook_endpoints" (
  "id" TEXT PRIMARY KEY,
  "url" TEXT NOT NULL,
  "description" TEXT NOT NULL DEFAULT '',
  "events" TEXT[] NOT NULL,
  "enabled" BOOLEAN NOT NULL DEFAULT true,
  -- `whsec_` + base64 of 32 random bytes. Kept in the clear: signing (HMAC) needs the key itself.
  "secret" TEXT NOT NULL,
  -- During a rotation, the secret before it; deliveries are signed with both until it expires.
  "previous_secret" TEXT,
  "previous_secret_expires_at" TIMESTAMPTZ(3),
  "created_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "webhook_endpoints_events_check" CHECK (
    cardinality("events") > 0 AND "events" <@ ARRAY['call.pending', 'call.decided', 'call.expired', 'run.finished']::text[]),
  CONSTRAINT "webhook_endpoints_previous_secret_check" CHECK (("previous_secret" IS NULL) = ("previous_secret_expires_at" IS NULL))
);

-- One row per event that at least one endpoint wanted. `dedupe_key` (type + subject) makes the same
-- state change emit one event, whatever writes it twice; `id` is the `webhook-id` of every delivery.
CREATE TABLE "webhook_events" (
  "id" TEXT PRIMARY KEY,
  "type" TEXT NOT NULL,
  "dedupe_key" TEXT NOT NULL UNIQUE,
  "data" JSONB NOT NULL,
  -- The call's arguments as they were at the event; sent only through the tool's sensitivity mask.
  "args" JSONB,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

CREATE TABLE "webhook_deliveries" (
  "id" TEXT PRIMARY KEY,
  "event_id" TEXT NOT NULL REFERENCES "webhook_events"("id") ON DELETE CASCADE,
  "endpoint_id" TEXT NOT NULL REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE,
  -- pending (queued or retrying) | succeeded | failed (attempts used up, or endpoint disabled)
  "status" TEXT NOT NULL DEFAULT 'pending',
  "attempts" INTEGER NOT NULL DEFAULT 0,
  -- Attempts made before the last resend: a resend gets the full number of retries again.
  "retry_base_attempt" INTEGER NOT NULL DEFAULT 0,
  "last_status_code" INTEGER,
  "last_error" TEXT,
  "last_duration_ms" INTEGER,
  "last_attempt_at" TIMESTAMPTZ(3),
  "next_attempt_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed')),
  UNIQUE ("event_id", "endpoint_id")
);
CREATE INDEX "webhook_deliveries_created_at_id_idx" ON "webhook_deliveries" ("created_at" DESC, "id" DESC);
CREATE INDEX "webhook_deliveries_endpoint_created_at_idx" ON "webhook_deliveries" ("endpoint_id", "created_at" DESC, "id" DESC);

-- Every HTTP attempt of a delivery (the log behind the counters above).
CREATE TABLE "webhook_attempts" (
  "id" BIGSERIAL PRIMARY KEY,
  "delivery_id" TEXT NOT NULL REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE,
  "attempt" INTEGER NOT NULL,
  "status_code" INTEGER,
  "error" TEXT,
  "duration_ms" INTEGER NOT NULL,
  "resend" BOOLEAN NOT NULL DEFAULT false,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" ("delivery_id", "attempt");

-- Emits one event (the callers checked that some endpoint wants its type): the event row (once per
-- dedupe key) and, per subscribed endpoint, a delivery row and its `webhook-delivery` job, all
-- committed with the state change that caused it (save, then publish).
CREATE FUNCTION "countersign_emit_webhook"("event_type" TEXT, "key" TEXT, "payload" JSONB, "call_args" JSONB) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  "event_id" TEXT;
  "delivery" RECORD;
BEGIN
  INSERT INTO "webhook_events" ("id", "type", "dedupe_key", "data", "args")
  VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), "event_type", "key", "payload", "call_args")
  ON CONFLICT ("dedupe_key") DO NOTHING
  RETURNING "id" INTO "event_id";
  IF "event_id" IS NULL THEN
    RETURN;
  END IF;
  FOR "delivery" IN
    INSERT INTO "webhook_deliveries" ("id", "event_id", "endpoint_id", "next_attempt_at")
    SELECT 'whd_' || replace(gen_random_uuid()::text, '-', ''), "event_id", e."id", now()
    FROM "webhook_endpoints" e WHERE e."enabled" AND "event_type" = ANY(e."events")
    RETURNING "id"
  LOOP
    IF to_regnamespace('graphile_worker') IS NOT NULL THEN
      PERFORM graphile_worker.add_job(
        'webhook-delivery',
        payload => json_build_object('deliveryId', "delivery"."id"),
        job_key => 'webhook-delivery:' || "delivery"."id",
        job_key_mode => 'replace'
      );
    END IF;
  END LOOP;
END;
$$;

-- Whether an enabled endpoint subscribes to an event type: the triggers below ask first, so a state
-- change nobody listens to costs this one look at a tiny table and builds no payload.
CREATE FUNCTION "countersign_webhook_wanted"("event_type" TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM "webhook_endpoints" e WHERE e."enabled" AND "event_type" = ANY(e."events"))
$$;

-- A person (or nobody) in an event: id and display name.
CREATE FUNCTION "countersign_webhook_person"("person_id" TEXT) RETURNS JSONB LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('id', "person_id", 'name', (SELECT u."name" FROM "users" u WHERE u."id" = "person_id"))
$$;

-- call.pending: a call starts waiting for a decision or an answer (a new pending row; a tool that
-- suspends again is a new row, so a new event).
CREATE FUNCTION "webhook_call_pending"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT "countersign_webhook_wanted"('call.pending') THEN
    RETURN NULL;
  END IF;
  PERFORM "countersign_emit_webhook"('call.pending', 'call.pending:' || NEW."id", jsonb_build_object(
    'callId', NEW."id",
    'runId', NEW."root_run_id",
    'toolCallId', NEW."root_tool_call_id",
    'kind', NEW."kind",
    'status', NEW."status",
    'toolName', NEW."tool_name",
    'agentId', NEW."agent_id",
    'threadId', NEW."thread_id",
    'chain', to_jsonb(NEW."chain"),
    'approvers', NEW."approvers",
    'quorum', NEW."quorum",
    'fingerprint', NEW."fingerprint",
    'why', NEW."policy_evaluation" -> 'why',
    'requestedBy', "countersign_webhook_person"(NEW."requested_by"),
    'deadlineAt', NEW."deadline_at",
    'createdAt', NEW."created_at"
  ), NEW."args");
  RETURN NULL;
END;
$$;
CREATE TRIGGER "pending_tool_calls_webhook" AFTER INSERT ON "pending_tool_calls"
  FOR EACH ROW WHEN (NEW."status" = 'pending' AND NEW."kind" <> 'delegation') EXECUTE FUNCTION "webhook_call_pending"();

-- call.decided / call.expired: the decision that closed a pending call (approval, decline, answer).
-- A decline by the deadline job (actor role `system`) is `call.expired`. Votes short of a quorum and
-- escalations decide nothing yet.
CREATE FUNCTION "webhook_call_decided"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  "expired" BOOLEAN := NEW."actor_role" = 'system' AND NEW."kind" = 'decline';
  "call" RECORD;
BEGIN
  IF NOT "countersign_webhook_wanted"(CASE WHEN "expired" THEN 'call.expired' ELSE 'call.decided' END) THEN
    RETURN NULL;
  END IF;
  SELECT p."root_run_id", p."root_tool_call_id", p."agent_id", p."thread_id", p."kind", p."requested_by"
  INTO "call" FROM "pending_tool_calls" p WHERE p."id" = NEW."pending_call_id";
  PERFORM "countersign_emit_webhook"(
    CASE WHEN "expired" THEN 'call.expired' ELSE 'call.decided' END,
    'call.decided:' || NEW."pending_call_id",
    jsonb_build_object(
      'callId', NEW."pending_call_id",
      'runId', "call"."root_run_id",
      'toolCallId', "call"."root_tool_call_id",
      'kind', "call"."kind",
      'status', CASE NEW."kind" WHEN 'approval' THEN 'approved' WHEN 'decline' THEN CASE WHEN "expired" THEN 'expired' ELSE 'declined' END ELSE 'resumed' END,
      'toolName', NEW."tool_name",
      'agentId', "call"."agent_id",
      'threadId', "call"."thread_id",
      'approved', NEW."approved",
      'reason', NEW."reason",
      'decidedBy', "countersign_webhook_person"(NEW."actor_id") || jsonb_build_object('role', NEW."actor_role"),
      'decidedAt', NEW."created_at",
      'edited', NEW."edited_args" IS NOT NULL,
      'fingerprint', coalesce(NEW."edited_fingerprint", NEW."fingerprint"),
      'requestedBy', "countersign_webhook_person"("call"."requested_by"),
      'decisionId', NEW."id"
    ),
    coalesce(NEW."edited_args", NEW."args"));
  RETURN NULL;
END;
$$;
CREATE TRIGGER "decisions_webhook" AFTER INSERT ON "decisions"
  FOR EACH ROW WHEN (NEW."kind" IN ('approval', 'decline', 'resume')) EXECUTE FUNCTION "webhook_call_decided"();

-- run.finished: a top-level run reaches completed, failed or cancelled.
CREATE FUNCTION "webhook_run_finished"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT "countersign_webhook_wanted"('run.finished') THEN
    RETURN NULL;
  END IF;
  PERFORM "countersign_emit_webhook"('run.finished', 'run.finished:' || NEW."id", jsonb_build_object(
    'runId', NEW."id",
    'status', NEW."status",
    'error', NEW."error",
    'agentId', NEW."agent_id",
    'threadId', NEW."thread_id",
    'requestedBy', "countersign_webhook_person"(NEW."requested_by"),
    'startedAt', NEW."started_at",
    'finishedAt', NEW."updated_at"
  ), NULL);
  RETURN NULL;
END;
$$;
CREATE TRIGGER "runs_webhook" AFTER UPDATE OF "status" ON "runs"
  FOR EACH ROW WHEN (NEW."parent_run_id" IS NULL AND NEW."status" IN ('completed', 'failed', 'cancelled') AND OLD."status" IS DISTINCT FROM NEW."status")
  EXECUTE FUNCTION "webhook_run_finished"();
