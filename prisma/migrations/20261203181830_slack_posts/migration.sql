-- CreateTable
CREATE TABLE "slack_posts" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "slot" TEXT NOT NULL,
    "channel_id" TEXT,
    "ts" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "shown_status" TEXT NOT NULL DEFAULT 'open',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "last_error_class" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "slack_posts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "slack_posts_status_next_attempt_at_idx" ON "slack_posts"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "slack_posts_shown_status_status_idx" ON "slack_posts"("shown_status", "status");

-- CreateIndex
CREATE UNIQUE INDEX "slack_posts_message_id_slot_key" ON "slack_posts"("message_id", "slot");

-- AddForeignKey
ALTER TABLE "slack_posts" ADD CONSTRAINT "slack_posts_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
