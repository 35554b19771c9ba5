-- CreateTable
CREATE TABLE "item_views" (
    "message_id" TEXT NOT NULL,
    "membership_id" TEXT NOT NULL,
    "first_shown_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "item_views_pkey" PRIMARY KEY ("message_id","membership_id")
);

-- CreateIndex
CREATE INDEX "item_views_membership_id_idx" ON "item_views"("membership_id");

-- CreateIndex
-- Insights read an account's asks of a window from this index alone (index-only scans): partial on
-- the human inbox's asks, which the schema cannot say (as messages_inbox_facets_idx).
CREATE INDEX "messages_insights_idx" ON "messages"("account_id", "created_at", "id", "agent_row_id", "status", "priority", "project") WHERE "type" = 'ask' AND "to_address" IS NULL;

-- CreateIndex
CREATE INDEX "resolutions_actor_resolved_at_idx" ON "resolutions"("actor", "resolved_at");

-- AddForeignKey
ALTER TABLE "item_views" ADD CONSTRAINT "item_views_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "item_views" ADD CONSTRAINT "item_views_membership_id_fkey" FOREIGN KEY ("membership_id") REFERENCES "memberships"("id") ON DELETE CASCADE ON UPDATE CASCADE;
