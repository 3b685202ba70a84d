-- Reviewer notifications: one row per (pending call, kind) claims the sending, so a notification is
-- sent once however many servers (or retries of a queued job) try; `sent_at` is set once it went out.
CREATE TABLE "notification_deliveries" (
  "pending_call_id" TEXT NOT NULL REFERENCES "pending_tool_calls"("id") ON DELETE CASCADE,
  "kind" TEXT NOT NULL,
  "recipients" TEXT[] NOT NULL DEFAULT '{}',
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "sent_at" TIMESTAMPTZ(3),
  PRIMARY KEY ("pending_call_id", "kind")
);

-- Without SMTP_URL (local development) mail is kept here and shown at /dev/mailbox (admins).
CREATE TABLE "dev_mailbox" (
  "id" TEXT PRIMARY KEY,
  "to_addresses" TEXT[] NOT NULL,
  "from_address" TEXT NOT NULL,
  "subject" TEXT NOT NULL,
  "text" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "dev_mailbox_created_at_id_idx" ON "dev_mailbox" ("created_at" DESC, "id" DESC);
