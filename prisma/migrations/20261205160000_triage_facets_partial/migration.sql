-- §8.7.1: addressed (agent↔agent) messages stay out of the triage inbox (lib/inbox/sql.ts
-- TRIAGE_ONLY). The facet counts read this covering index only (docs/PERFORMANCE.md, "Inbox"); a
-- `to_address IS NULL` check on the full index would visit the heap for every row, so the index
-- becomes partial on that predicate — and fleet traffic, however busy, adds nothing to its scan.
DROP INDEX "messages_inbox_facets_idx";
CREATE INDEX "messages_inbox_facets_idx" ON "messages"("account_id", "type", "status", "priority_rank", "agent_row_id", "project") WHERE "to_address" IS NULL;
