-- AlterTable
ALTER TABLE "audit_events" ADD COLUMN     "user_id" TEXT,
ALTER COLUMN "account_id" DROP NOT NULL;

-- AlterTable
ALTER TABLE "auth_identities" ADD COLUMN     "last_sign_in_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "audit_events_user_id_at_idx" ON "audit_events"("user_id", "at");

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A row is in exactly one stream: an account's, or a person's own (#18: a person's token, identity
-- and preference events are never written into an account they merely belong to).
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_one_stream"
  CHECK (("account_id" IS NULL) <> ("user_id" IS NULL));
