-- AlterTable
ALTER TABLE "approval_votes" ADD COLUMN     "for_handle" TEXT;

-- CreateTable
CREATE TABLE "delegations" (
    "delegator_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "delegate_id" TEXT NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "delegations_pkey" PRIMARY KEY ("delegator_id")
);

-- CreateTable
CREATE TABLE "policy_escalations" (
    "message_id" TEXT NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "policy_escalations_pkey" PRIMARY KEY ("message_id")
);

-- CreateIndex
CREATE INDEX "delegations_delegate_id_idx" ON "delegations"("delegate_id");

-- CreateIndex
CREATE INDEX "delegations_account_id_idx" ON "delegations"("account_id");

-- CreateIndex
CREATE INDEX "policy_escalations_due_at_idx" ON "policy_escalations"("due_at");

-- AddForeignKey
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_delegator_id_fkey" FOREIGN KEY ("delegator_id") REFERENCES "memberships"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_delegate_id_fkey" FOREIGN KEY ("delegate_id") REFERENCES "memberships"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_escalations" ADD CONSTRAINT "policy_escalations_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
