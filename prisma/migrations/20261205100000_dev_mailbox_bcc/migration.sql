-- Reviewer emails go to their recipients as Bcc (a neutral To), so no reviewer sees the others'
-- addresses. The dev mailbox keeps the Bcc list beside the To header it would have sent.
ALTER TABLE "dev_mailbox" ADD COLUMN "bcc_addresses" TEXT[] NOT NULL DEFAULT '{}';
