-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "last_seen_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "resolutions" ADD COLUMN     "ack_by" TEXT,
ADD COLUMN     "ack_note" TEXT,
ADD COLUMN     "ack_resolution_id" TEXT,
ADD COLUMN     "acked_at" TIMESTAMPTZ(3),
ADD COLUMN     "delivered_to_agent_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "mailbox_entries" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "agent_row_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'directive',
    "to_session" TEXT,
    "from_actor" TEXT NOT NULL,
    "author_user_id" TEXT,
    "ma2h_version" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "priority" TEXT NOT NULL DEFAULT 'normal',
    "content" TEXT NOT NULL,
    "sensitive" BOOLEAN NOT NULL DEFAULT false,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "expires_at" TIMESTAMPTZ(3),
    "drop_at" TIMESTAMPTZ(3) NOT NULL,
    "visible_at" TIMESTAMPTZ(3) NOT NULL,
    "deliveries" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "delivered_at" TIMESTAMPTZ(3),
    "acknowledged_at" TIMESTAMPTZ(3),
    "ack_note" TEXT,
    "prior" TEXT,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "mailbox_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "mailbox_drain_idx" ON "mailbox_entries"("agent_row_id", "kind", "state", "seq");

-- CreateIndex
CREATE INDEX "mailbox_drop_idx" ON "mailbox_entries"("state", "drop_at");

-- CreateIndex
CREATE INDEX "mailbox_account_recent_idx" ON "mailbox_entries"("account_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "mailbox_entries_seq_key" ON "mailbox_entries"("seq");

-- CreateIndex
CREATE INDEX "audit_events_account_id_actor_at_idx" ON "audit_events"("account_id", "actor", "at");

-- CreateIndex
CREATE INDEX "audit_events_account_id_event_at_idx" ON "audit_events"("account_id", "event", "at");

-- AddForeignKey
ALTER TABLE "mailbox_entries" ADD CONSTRAINT "mailbox_entries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mailbox_entries" ADD CONSTRAINT "mailbox_entries_agent_row_id_fkey" FOREIGN KEY ("agent_row_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The audit trail is append-only (issue #6): no row is ever rewritten or removed by the Hub. An
-- operator who must erase an account sets `ma2h.allow_audit_delete = 'on'` for that one session.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('ma2h.allow_audit_delete', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER audit_events_append_only
  BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
