-- AlterTable
ALTER TABLE "notifications" ADD COLUMN     "batch_id" TEXT,
ADD COLUMN     "digest" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "account_notification_settings" (
    "account_id" TEXT NOT NULL,
    "defaults" JSONB NOT NULL DEFAULT '{}',
    "email_answer_without_sign_in" BOOLEAN NOT NULL DEFAULT true,
    "reminders" JSONB NOT NULL DEFAULT '{}',
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_notification_settings_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "notification_preferences" (
    "user_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "prefs" JSONB NOT NULL DEFAULT '{}',
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "notification_preferences_pkey" PRIMARY KEY ("user_id","account_id")
);

-- CreateTable
CREATE TABLE "email_answer_tokens" (
    "token_hash" TEXT NOT NULL,
    "notification_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "option" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "email_answer_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "email_answer_tokens_message_id_idx" ON "email_answer_tokens"("message_id");

-- AddForeignKey
ALTER TABLE "account_notification_settings" ADD CONSTRAINT "account_notification_settings_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_answer_tokens" ADD CONSTRAINT "email_answer_tokens_notification_id_fkey" FOREIGN KEY ("notification_id") REFERENCES "notifications"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_answer_tokens" ADD CONSTRAINT "email_answer_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
