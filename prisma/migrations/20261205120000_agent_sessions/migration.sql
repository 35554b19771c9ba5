-- §16 sessions and the §16.4.1 durable operator stop (#21).

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "agent_session_visibility" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "agent_sessions" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "agent_row_id" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "closed_by_operator" BOOLEAN NOT NULL DEFAULT false,
    "closed_by" TEXT,
    "run_id" TEXT,
    "label" TEXT,
    "kind" TEXT,
    "project" TEXT,
    "labels" JSONB,
    "ttl_seconds" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "agent_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_stops" (
    "agent_row_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "stopped_at" TIMESTAMPTZ(3) NOT NULL,
    "stopped_by" TEXT NOT NULL,
    "session_id" TEXT,

    CONSTRAINT "agent_stops_pkey" PRIMARY KEY ("agent_row_id")
);

-- CreateIndex
CREATE INDEX "agent_sessions_agent_row_id_state_idx" ON "agent_sessions"("agent_row_id", "state");

-- CreateIndex
CREATE INDEX "agent_sessions_account_id_created_at_idx" ON "agent_sessions"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "agent_sessions_state_expires_at_idx" ON "agent_sessions"("state", "expires_at");

-- CreateIndex
CREATE INDEX "agent_sessions_ended_at_idx" ON "agent_sessions"("ended_at");

-- AddForeignKey
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_agent_row_id_fkey" FOREIGN KEY ("agent_row_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_stops" ADD CONSTRAINT "agent_stops_agent_row_id_fkey" FOREIGN KEY ("agent_row_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The states a session can be in, and the marker only a winning operator close sets (§16.3/§16.4).
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_state" CHECK ("state" IN ('active', 'closed', 'expired'));
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_marker" CHECK (NOT "closed_by_operator" OR "state" = 'closed');
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_terminal_ended" CHECK (("state" = 'active') = ("ended_at" IS NULL));

-- Choice A22 (lib/sessions/liveness.ts): when web processes last served, so leases that lapsed while
-- no web process was up are given a fresh window instead of being expired by the outage.
-- CreateTable
CREATE TABLE "hub_liveness" (
    "id" SMALLINT NOT NULL,
    "web_seen_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "hub_liveness_pkey" PRIMARY KEY ("id")
);
