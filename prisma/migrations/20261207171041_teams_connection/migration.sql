-- CreateTable
CREATE TABLE "teams_connections" (
    "account_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "app_secret_sealed" TEXT NOT NULL,
    "channel_id" TEXT,
    "service_url" TEXT,
    "personal_messages" BOOLEAN NOT NULL DEFAULT false,
    "connected_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "teams_connections_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "teams_identities" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "teams_user_id" TEXT NOT NULL,
    "chat_user_id" TEXT,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "teams_identities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "teams_posts" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "slot" TEXT NOT NULL,
    "conversation_id" TEXT,
    "service_url" TEXT NOT NULL,
    "activity_id" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "shown_status" TEXT NOT NULL DEFAULT 'open',
    "shown_approvals" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "last_error_class" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "teams_posts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "teams_identities_account_id_teams_user_id_key" ON "teams_identities"("account_id", "teams_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "teams_identities_account_id_user_id_key" ON "teams_identities"("account_id", "user_id");

-- CreateIndex
CREATE INDEX "teams_posts_status_next_attempt_at_idx" ON "teams_posts"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "teams_posts_shown_status_status_idx" ON "teams_posts"("shown_status", "status");

-- CreateIndex
CREATE UNIQUE INDEX "teams_posts_message_id_slot_key" ON "teams_posts"("message_id", "slot");

-- AddForeignKey
ALTER TABLE "teams_connections" ADD CONSTRAINT "teams_connections_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "teams_identities" ADD CONSTRAINT "teams_identities_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "teams_identities" ADD CONSTRAINT "teams_identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "teams_posts" ADD CONSTRAINT "teams_posts_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
