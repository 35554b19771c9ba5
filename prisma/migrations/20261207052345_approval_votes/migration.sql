-- CreateTable
CREATE TABLE "approval_votes" (
    "message_id" TEXT NOT NULL,
    "membership_id" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "resolution" TEXT NOT NULL,
    "value" TEXT,
    "comment" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "approval_votes_pkey" PRIMARY KEY ("message_id","membership_id")
);

-- CreateIndex
CREATE INDEX "approval_votes_membership_id_idx" ON "approval_votes"("membership_id");

-- AddForeignKey
ALTER TABLE "approval_votes" ADD CONSTRAINT "approval_votes_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approval_votes" ADD CONSTRAINT "approval_votes_membership_id_fkey" FOREIGN KEY ("membership_id") REFERENCES "memberships"("id") ON DELETE CASCADE ON UPDATE CASCADE;
