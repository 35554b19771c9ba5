-- §9.2: a signing key per account for pushes (null: the Hub-wide key, which keeps signing §9.7
-- directives and §9.8 entries). Existing keys are the Hub-wide ones.
ALTER TABLE "signing_keys" ADD COLUMN "account_id" TEXT;
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_account_id_fkey"
  FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "signing_keys_account_id_retired_at_idx" ON "signing_keys"("account_id", "retired_at");
