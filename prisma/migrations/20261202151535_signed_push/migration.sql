-- AlterTable
ALTER TABLE "push_deliveries" ADD COLUMN     "cycle_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cycle_started_at" TIMESTAMPTZ(3),
ADD COLUMN     "delivered_at" TIMESTAMPTZ(3),
ADD COLUMN     "lease_until" TIMESTAMPTZ(3);

-- Existing obligations start their retry cycle at their creation (hand-edited: backfill, then NOT NULL).
UPDATE "push_deliveries" SET "cycle_started_at" = "created_at";
ALTER TABLE "push_deliveries" ALTER COLUMN "cycle_started_at" SET NOT NULL;

-- CreateTable
CREATE TABLE "push_attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "error_class" TEXT,
    "outcome" TEXT NOT NULL,

    CONSTRAINT "push_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "sealed_private_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "push_attempts_delivery_id_attempt_idx" ON "push_attempts"("delivery_id", "attempt");

-- AddForeignKey
ALTER TABLE "push_attempts" ADD CONSTRAINT "push_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "push_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
