-- AlterTable
ALTER TABLE "message_tombstones" ADD COLUMN     "actor" TEXT,
ADD COLUMN     "delivery_expired_at" TIMESTAMPTZ(3),
ADD COLUMN     "resolved_at" TIMESTAMPTZ(3),
ADD COLUMN     "status" TEXT,
ADD COLUMN     "title" TEXT,
ADD COLUMN     "type" TEXT;
