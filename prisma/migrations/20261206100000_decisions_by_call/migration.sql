-- The votes of one quorum call, read for the inbox's "whose vote no longer counts" (lib/store/quorum-votes.ts).
CREATE INDEX "decisions_pending_call_id_idx" ON "decisions"("pending_call_id");
