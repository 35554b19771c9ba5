-- §8.6 / choice A30 (#23): `inbox_depth` bounds an agent's open asks/tasks in the HUMAN inbox. An
-- addressed (inter-agent) ask is bounded by its destination's mailbox depth instead, so the triggers
-- of migration 20261205090000 count only rows without `to_address` (which never changes).
DROP TRIGGER messages_open_inserted ON messages;
DROP TRIGGER messages_open_left ON messages;
DROP TRIGGER messages_open_deleted ON messages;

CREATE TRIGGER messages_open_inserted AFTER INSERT ON messages
  FOR EACH ROW WHEN (NEW.status = 'open' AND NEW.to_address IS NULL) EXECUTE FUNCTION agent_open_counts_track();
CREATE TRIGGER messages_open_left AFTER UPDATE OF status ON messages
  FOR EACH ROW WHEN (OLD.status = 'open' AND NEW.status <> 'open' AND OLD.to_address IS NULL)
  EXECUTE FUNCTION agent_open_counts_track();
CREATE TRIGGER messages_open_deleted AFTER DELETE ON messages
  FOR EACH ROW WHEN (OLD.status = 'open' AND OLD.to_address IS NULL) EXECUTE FUNCTION agent_open_counts_track();

UPDATE agent_open_counts c SET open = (
  SELECT count(*) FROM messages m WHERE m.agent_row_id = c.agent_row_id AND m.status = 'open' AND m.to_address IS NULL);
