-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "routing" TEXT;

-- CreateTable
CREATE TABLE "account_policies" (
    "account_id" TEXT NOT NULL,
    "rules" JSONB NOT NULL,
    "revision" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_by" TEXT NOT NULL,

    CONSTRAINT "account_policies_pkey" PRIMARY KEY ("account_id")
);

-- AddForeignKey
ALTER TABLE "account_policies" ADD CONSTRAINT "account_policies_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
