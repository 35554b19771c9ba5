-- CreateTable
CREATE TABLE "agent_open_counts" (
    "agent_row_id" TEXT NOT NULL,
    "open" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "agent_open_counts_pkey" PRIMARY KEY ("agent_row_id")
);

-- AddForeignKey
ALTER TABLE "agent_open_counts" ADD CONSTRAINT "agent_open_counts_agent_row_id_fkey" FOREIGN KEY ("agent_row_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- §8.6 inbox depth without counting (#20, docs/PERFORMANCE.md): the open asks/tasks of each agent,
-- kept by triggers so that every writer of `messages` — the submit statement, the §7 CAS, retention,
-- a purge, a benchmark's seed — keeps it right. A submit locks its agent's row (INSERT … ON CONFLICT
-- DO UPDATE, which sees the newest committed count) and compares it with inbox_depth in the same
-- statement; the trigger then counts the new row. Nothing leaves a terminal status (§7), so only
-- these three transitions move the count.
CREATE FUNCTION agent_open_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO agent_open_counts (agent_row_id, open) VALUES (NEW.agent_row_id, 1)
      ON CONFLICT (agent_row_id) DO UPDATE SET open = agent_open_counts.open + 1;
  ELSE
    UPDATE agent_open_counts SET open = open - 1 WHERE agent_row_id = OLD.agent_row_id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER messages_open_inserted AFTER INSERT ON messages
  FOR EACH ROW WHEN (NEW.status = 'open') EXECUTE FUNCTION agent_open_counts_track();
CREATE TRIGGER messages_open_left AFTER UPDATE OF status ON messages
  FOR EACH ROW WHEN (OLD.status = 'open' AND NEW.status <> 'open') EXECUTE FUNCTION agent_open_counts_track();
CREATE TRIGGER messages_open_deleted AFTER DELETE ON messages
  FOR EACH ROW WHEN (OLD.status = 'open') EXECUTE FUNCTION agent_open_counts_track();

INSERT INTO agent_open_counts (agent_row_id, open)
  SELECT agent_row_id, count(*) FROM messages WHERE status = 'open' GROUP BY agent_row_id;
