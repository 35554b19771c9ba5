-- The benchmark floor's table (docs/PERFORMANCE.md, app/bench/floor, scripts/bench/baseline-server.ts),
-- which the bench script used to create by hand. IF NOT EXISTS: a database an earlier bench run made
-- it in already has it, with these same columns and primary key.
CREATE TABLE IF NOT EXISTS "bench_baseline" (
    "id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "envelope" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "bench_baseline_pkey" PRIMARY KEY ("id")
);
