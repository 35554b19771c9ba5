-- AlterTable
ALTER TABLE "account_policies" ADD COLUMN     "standing_rules" JSONB;

-- CreateTable
CREATE TABLE "standing_rules" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "creator_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "options" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "project" TEXT,
    "tags" TEXT[],
    "title_pattern" TEXT,
    "shadow" BOOLEAN NOT NULL,
    "hourly_cap" INTEGER NOT NULL,
    "source_message_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "revoked_by" TEXT,
    "stopped_at" TIMESTAMPTZ(3),

    CONSTRAINT "standing_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "standing_rule_hits" (
    "rule_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "shadow" BOOLEAN NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "standing_rule_hits_pkey" PRIMARY KEY ("rule_id","message_id")
);

-- CreateIndex
CREATE INDEX "standing_rules_account_id_agent_id_idx" ON "standing_rules"("account_id", "agent_id");

-- CreateIndex
CREATE INDEX "standing_rules_creator_id_idx" ON "standing_rules"("creator_id");

-- CreateIndex
CREATE INDEX "standing_rule_hits_rule_id_at_idx" ON "standing_rule_hits"("rule_id", "at");

-- AddForeignKey
ALTER TABLE "standing_rules" ADD CONSTRAINT "standing_rules_creator_id_fkey" FOREIGN KEY ("creator_id") REFERENCES "memberships"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "standing_rule_hits" ADD CONSTRAINT "standing_rule_hits_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "standing_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
