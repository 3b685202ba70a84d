-- CreateTable
CREATE TABLE "threads" (
    "id" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "title" TEXT NOT NULL DEFAULT 'New chat',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "threads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "seq" BIGSERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "run_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "parent_run_id" TEXT,
    "message_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "state" JSONB,
    "error" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pending_tool_calls" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "args" JSONB NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "approvers" TEXT NOT NULL,
    "policy" TEXT NOT NULL,
    "suspend_payload" JSONB,
    "resume_schema" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "chain" TEXT[],
    "root_run_id" TEXT NOT NULL,
    "root_tool_call_id" TEXT NOT NULL,
    "child_run_id" TEXT,
    "output" JSONB,
    "resume_data" JSONB,
    "decision_reason" TEXT,
    "decided_by" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pending_tool_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "decisions" (
    "id" TEXT NOT NULL,
    "pending_call_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "approved" BOOLEAN,
    "reason" TEXT,
    "actor_id" TEXT NOT NULL,
    "actor_role" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "args" JSONB NOT NULL,
    "edited_args" JSONB,
    "edited_fingerprint" TEXT,
    "resume_data" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "decisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_events" (
    "id" BIGSERIAL NOT NULL,
    "run_id" TEXT NOT NULL,
    "chunk" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "actor_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "response_status" INTEGER,
    "content_type" TEXT,
    "response_body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("actor_id","key")
);

-- CreateTable
CREATE TABLE "customers" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "tier" TEXT NOT NULL,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" TEXT NOT NULL,
    "customer_id" TEXT NOT NULL,
    "amount" DECIMAL(10,2) NOT NULL,
    "refunded" DECIMAL(10,2) NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "records" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_emails" (
    "id" TEXT NOT NULL,
    "to_address" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_emails_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "threads_resource_id_updated_at_idx" ON "threads"("resource_id", "updated_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "messages_id_key" ON "messages"("id");

-- CreateIndex
CREATE INDEX "messages_thread_id_seq_idx" ON "messages"("thread_id", "seq");

-- CreateIndex
CREATE INDEX "runs_thread_id_started_at_idx" ON "runs"("thread_id", "started_at");

-- CreateIndex
CREATE INDEX "runs_status_updated_at_idx" ON "runs"("status", "updated_at");

-- CreateIndex
CREATE INDEX "pending_tool_calls_status_created_at_id_idx" ON "pending_tool_calls"("status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "pending_tool_calls_run_id_tool_call_id_idx" ON "pending_tool_calls"("run_id", "tool_call_id");

-- CreateIndex
CREATE INDEX "pending_tool_calls_root_run_id_root_tool_call_id_idx" ON "pending_tool_calls"("root_run_id", "root_tool_call_id");

-- CreateIndex
CREATE INDEX "pending_tool_calls_thread_id_idx" ON "pending_tool_calls"("thread_id");

-- CreateIndex
CREATE INDEX "decisions_created_at_idx" ON "decisions"("created_at" DESC);

-- CreateIndex
CREATE INDEX "run_events_run_id_id_idx" ON "run_events"("run_id", "id");

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pending_tool_calls" ADD CONSTRAINT "pending_tool_calls_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "decisions" ADD CONSTRAINT "decisions_pending_call_id_fkey" FOREIGN KEY ("pending_call_id") REFERENCES "pending_tool_calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Not expressible in schema.prisma: at most one open pending row per tool call (a call that
-- suspends again after a resume gets a new row once the previous one is closed).
CREATE UNIQUE INDEX "pending_tool_calls_open_key" ON "pending_tool_calls"("run_id", "tool_call_id") WHERE "status" = 'pending';

-- The decision log is append-only: the database itself refuses updates and deletes.
CREATE FUNCTION "decisions_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'decisions are append-only';
END;
$$;
CREATE TRIGGER "decisions_no_update_delete" BEFORE UPDATE OR DELETE ON "decisions"
  FOR EACH ROW EXECUTE FUNCTION "decisions_append_only"();

-- Live updates across servers: every batch of run events, and every change of a run's status or
-- of a pending call, is announced with NOTIFY (delivered at commit, so readers never see ahead of
-- the database).
CREATE FUNCTION "notify_run_events"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT DISTINCT "run_id" FROM new_rows LOOP
    PERFORM pg_notify('countersign_run_events', r."run_id");
  END LOOP;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "run_events_notify" AFTER INSERT ON "run_events"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "notify_run_events"();

CREATE FUNCTION "notify_runs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW."status" IS DISTINCT FROM OLD."status" THEN
    PERFORM pg_notify('countersign_runs', json_build_object(
      'runId', NEW."id", 'threadId', NEW."thread_id", 'parentRunId', NEW."parent_run_id", 'status', NEW."status")::text);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "runs_notify" AFTER INSERT OR UPDATE ON "runs"
  FOR EACH ROW EXECUTE FUNCTION "notify_runs"();

CREATE FUNCTION "notify_pending_tool_calls"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW."status" IS DISTINCT FROM OLD."status" THEN
    PERFORM pg_notify('countersign_pending', json_build_object(
      'id', NEW."id", 'rootRunId', NEW."root_run_id", 'threadId', NEW."thread_id", 'status', NEW."status")::text);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "pending_tool_calls_notify" AFTER INSERT OR UPDATE ON "pending_tool_calls"
  FOR EACH ROW EXECUTE FUNCTION "notify_pending_tool_calls"();
