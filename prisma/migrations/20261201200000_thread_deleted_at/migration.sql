-- A deleted chat is hidden from its owner but kept, because its decisions stay in the append-only audit log.
ALTER TABLE "threads" ADD COLUMN "deleted_at" TIMESTAMPTZ(3);
