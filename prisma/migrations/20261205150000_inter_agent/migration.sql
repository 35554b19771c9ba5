-- The inter-agent leg (#23): addressed messages between one account's agents (§4 `to`, §8.7.1).

-- §4 `to` of an addressed message, its destination principal, the submit's `agent.session` (the
-- bound Caller for response entries and receipts, §6 / choice A17) and the §8.1 `destination`
-- snapshot the ack carried (a replay returns the stored original).
ALTER TABLE "messages" ADD COLUMN "to_address" TEXT;
ALTER TABLE "messages" ADD COLUMN "to_agent_row_id" TEXT;
ALTER TABLE "messages" ADD COLUMN "submit_session" TEXT;
ALTER TABLE "messages" ADD COLUMN "destination" TEXT;
ALTER TABLE "messages" ADD CONSTRAINT "messages_to_agent_row_id_fkey" FOREIGN KEY ("to_agent_row_id") REFERENCES "agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "messages" ADD CONSTRAINT "messages_addressed_check" CHECK (("to_address" IS NULL) = ("destination" IS NULL));

-- The "Agent traffic" view (/inbox/traffic): one account's addressed messages, newest first.
CREATE INDEX "messages_traffic_idx" ON "messages"("account_id", "created_at" DESC, "id") WHERE "to_address" IS NOT NULL;

-- §14.2: the session that last claimed an entry (the receipt's `session` for a principal-addressed
-- orphan), and when the consequences of an undeliverable `message` entry (the §7 auto-resolution,
-- the receipt) were applied — null until then, so a crash in between is re-found (§3.1).
ALTER TABLE "mailbox_entries" ADD COLUMN "claim_session" TEXT;
ALTER TABLE "mailbox_entries" ADD COLUMN "settled_at" TIMESTAMPTZ(3);
CREATE INDEX "mailbox_unsettled_idx" ON "mailbox_entries"("ended_at") WHERE "kind" = 'message' AND "state" IN ('bounced', 'expired') AND "settled_at" IS NULL;
ALTER TABLE "mailbox_entries" ADD CONSTRAINT "mailbox_entries_kind_check" CHECK ("kind" IN ('directive', 'message', 'response', 'receipt'));

-- §8.0 / §13.5 per-destination sender allowlist: unrestricted = any same-account agent may address
-- this agent; restricted = only the listed agent ids (possibly none).
ALTER TABLE "agents" ADD COLUMN "senders_restricted" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "agents" ADD COLUMN "allowed_senders" TEXT[] DEFAULT ARRAY[]::TEXT[];
