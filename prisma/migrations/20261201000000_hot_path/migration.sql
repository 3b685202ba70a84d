-- Hot path as single statements (see lib/store/prisma-store.ts).

-- Calls of a run's current step that are not closed yet (pending, waiting on a child run, or claimed
-- and executing). Whoever brings it to 0 on a suspended run continues that run; the row lock of
-- `UPDATE runs … RETURNING` serialises concurrent closers, so exactly one does.
ALTER TABLE "runs" ADD COLUMN "open_calls" INTEGER NOT NULL DEFAULT 0;

-- Existing runs that can still continue get their count (a declined call is open until its outcome is written).
UPDATE "runs" r SET "open_calls" = (
  SELECT count(*) FROM "pending_tool_calls" p
  WHERE p."run_id" = r."id"
    AND (p."status" IN ('pending', 'waiting', 'approved', 'resumed') OR (p."status" = 'declined' AND p."output" IS NULL))
)
WHERE r."status" IN ('running', 'suspended');

-- Audit keyset pages compare (created_at, id) as a row; the index must hold both columns, in order.
DROP INDEX "decisions_created_at_idx";
CREATE INDEX "decisions_created_at_id_idx" ON "decisions"("created_at" DESC, "id" DESC);
