-- The requester of a run is the signed-in identity that started it, kept apart from the resource
-- (thread owner) a run is for. Existing rows were always started by their resource.
ALTER TABLE "runs" ADD COLUMN "requested_by" TEXT;
UPDATE "runs" SET "requested_by" = "resource_id";
ALTER TABLE "runs" ALTER COLUMN "requested_by" SET NOT NULL;

ALTER TABLE "pending_tool_calls" ADD COLUMN "requested_by" TEXT;
UPDATE "pending_tool_calls" SET "requested_by" = "resource_id";
ALTER TABLE "pending_tool_calls" ALTER COLUMN "requested_by" SET NOT NULL;

-- CreateTable
CREATE TABLE "sign_in_failures" (
    "email" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "window_started_at" TIMESTAMPTZ(3) NOT NULL,
    "locked_until" TIMESTAMPTZ(3),

    CONSTRAINT "sign_in_failures_pkey" PRIMARY KEY ("email")
);
