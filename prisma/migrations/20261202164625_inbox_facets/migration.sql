-- CreateIndex
CREATE INDEX "messages_inbox_facets_idx" ON "messages"("account_id", "type", "status", "priority_rank", "agent_row_id", "project");
