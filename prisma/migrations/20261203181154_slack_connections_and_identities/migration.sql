-- CreateTable
CREATE TABLE "slack_connections" (
    "account_id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "team_name" TEXT NOT NULL,
    "bot_user_id" TEXT,
    "bot_token_sealed" TEXT NOT NULL,
    "signing_secret_sealed" TEXT NOT NULL,
    "channel_id" TEXT,
    "direct_messages" BOOLEAN NOT NULL DEFAULT true,
    "connected_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "slack_connections_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "slack_identities" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "slack_user_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "slack_identities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "slack_bind_tokens" (
    "token_hash" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "team_id" TEXT NOT NULL,
    "slack_user_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "slack_bind_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE UNIQUE INDEX "slack_identities_account_id_slack_user_id_key" ON "slack_identities"("account_id", "slack_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "slack_identities_account_id_user_id_key" ON "slack_identities"("account_id", "user_id");

-- CreateIndex
CREATE INDEX "slack_bind_tokens_account_id_slack_user_id_idx" ON "slack_bind_tokens"("account_id", "slack_user_id");

-- AddForeignKey
ALTER TABLE "slack_connections" ADD CONSTRAINT "slack_connections_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "slack_identities" ADD CONSTRAINT "slack_identities_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "slack_identities" ADD CONSTRAINT "slack_identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "slack_bind_tokens" ADD CONSTRAINT "slack_bind_tokens_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
