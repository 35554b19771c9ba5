-- CreateTable
CREATE TABLE "a2a_push_configs" (
    "id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "config_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "token" TEXT NOT NULL DEFAULT '',
    "pushed_status" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "cycle_started_at" TIMESTAMPTZ(3) NOT NULL,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "a2a_push_configs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "a2a_push_configs_finished_at_next_attempt_at_idx" ON "a2a_push_configs"("finished_at", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "a2a_push_configs_message_id_config_id_key" ON "a2a_push_configs"("message_id", "config_id");

-- AddForeignKey
ALTER TABLE "a2a_push_configs" ADD CONSTRAINT "a2a_push_configs_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
