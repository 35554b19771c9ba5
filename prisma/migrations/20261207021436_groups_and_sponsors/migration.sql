-- Account groups (`group:<name>`), their members (kept by owners, or from the identity provider's
-- groups claim at sign-in through the mappings) and agent sponsors (docs/groups.md).
-- CreateTable
CREATE TABLE "account_groups" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "group_members" (
    "group_id" TEXT NOT NULL,
    "membership_id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "group_members_pkey" PRIMARY KEY ("group_id","membership_id")
);

-- CreateTable
CREATE TABLE "group_claim_mappings" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "group_id" TEXT NOT NULL,
    "claim_value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "group_claim_mappings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_sponsors" (
    "id" TEXT NOT NULL,
    "agent_row_id" TEXT NOT NULL,
    "membership_id" TEXT,
    "group_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_sponsors_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "account_groups_account_id_name_key" ON "account_groups"("account_id", "name");

-- CreateIndex
CREATE INDEX "group_members_membership_id_idx" ON "group_members"("membership_id");

-- CreateIndex
CREATE INDEX "group_claim_mappings_account_id_claim_value_idx" ON "group_claim_mappings"("account_id", "claim_value");

-- CreateIndex
CREATE UNIQUE INDEX "group_claim_mappings_group_id_claim_value_key" ON "group_claim_mappings"("group_id", "claim_value");

-- CreateIndex
CREATE INDEX "agent_sponsors_membership_id_idx" ON "agent_sponsors"("membership_id");

-- CreateIndex
CREATE INDEX "agent_sponsors_group_id_idx" ON "agent_sponsors"("group_id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_sponsors_agent_row_id_membership_id_key" ON "agent_sponsors"("agent_row_id", "membership_id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_sponsors_agent_row_id_group_id_key" ON "agent_sponsors"("agent_row_id", "group_id");

-- AddForeignKey
ALTER TABLE "account_groups" ADD CONSTRAINT "account_groups_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "account_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_members" ADD CONSTRAINT "group_members_membership_id_fkey" FOREIGN KEY ("membership_id") REFERENCES "memberships"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_claim_mappings" ADD CONSTRAINT "group_claim_mappings_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_claim_mappings" ADD CONSTRAINT "group_claim_mappings_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "account_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_sponsors" ADD CONSTRAINT "agent_sponsors_agent_row_id_fkey" FOREIGN KEY ("agent_row_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_sponsors" ADD CONSTRAINT "agent_sponsors_membership_id_fkey" FOREIGN KEY ("membership_id") REFERENCES "memberships"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_sponsors" ADD CONSTRAINT "agent_sponsors_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "account_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A sponsor is a person or a group, exactly one of the two.
ALTER TABLE "agent_sponsors" ADD CONSTRAINT "agent_sponsors_one_principal"
  CHECK (("membership_id" IS NULL) <> ("group_id" IS NULL));

-- The default sponsor of an agent is the person who created it: for the agents created before
-- this, the person the `agent.created` audit row names (agents the operator created with the CLI,
-- `system:cli`, have none until an owner names one).
INSERT INTO "agent_sponsors" ("id", "agent_row_id", "membership_id", "created_at")
SELECT 'spn_' || replace(gen_random_uuid()::text, '-', ''), a."id", m."id", now()
FROM "audit_events" e
JOIN "agents" a ON a."id" = e."detail"->>'agent_row_id' AND a."account_id" = e."account_id"
JOIN "memberships" m ON m."account_id" = e."account_id" AND 'human:' || m."handle" = e."actor"
WHERE e."event" = 'agent.created'
ON CONFLICT DO NOTHING;
