-- The sending agent of an addressed `message` entry (§8.7.1), so the per-sender quota on one
-- mailbox (MA2H_INBOUND_MAX_PER_SENDER) and `ma2h-hub agent mailbox purge --from` name it exactly:
-- the attested `from` cannot, since an agent id may itself contain `#`. Null for directives (a
-- person authors them) and for `response` / `receipt` entries (the Hub writes them).
ALTER TABLE mailbox_entries ADD COLUMN sender_agent_row_id TEXT;

-- A message entry has its message's id; the message's agent is the sender.
UPDATE mailbox_entries e SET sender_agent_row_id = m.agent_row_id
  FROM messages m WHERE m.id = e.id AND e.kind = 'message';
