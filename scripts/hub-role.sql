-- The Hub's own database role, which does not own the audit trail (#19, docs/DEPLOYMENT.md).
-- Run as the owner of the Hub's tables (the role `npm run db:migrate` uses), after every migration:
--   psql "$OWNER_DATABASE_URL" -v hub_role=ma2h_app -f scripts/hub-role.sql
-- The role itself is yours to create (CREATE ROLE ma2h_app LOGIN PASSWORD '…'). It may read and
-- write the Hub's tables, but of the audit trail only read, append and seal: no UPDATE of a row's
-- content, no DELETE, no TRUNCATE, and — not being the owner — no ALTER TABLE to switch the
-- append-only trigger off. Migrations and `ma2h-hub account purge` run as the owner.
GRANT USAGE ON SCHEMA public TO :"hub_role";
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"hub_role";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO :"hub_role";
REVOKE ALL ON "_prisma_migrations" FROM :"hub_role";
GRANT SELECT ON "_prisma_migrations" TO :"hub_role";
REVOKE ALL ON "audit_events", "audit_tombstones" FROM :"hub_role";
GRANT SELECT, INSERT ON "audit_events" TO :"hub_role";
GRANT UPDATE ("seq", "prev_hash", "hash") ON "audit_events" TO :"hub_role";
GRANT SELECT ON "audit_tombstones" TO :"hub_role";
-- The signed checkpoints and signing starts: read and append only. The checkpoint keys: read, add,
-- and re-seal (`ma2h-hub secrets rotate`), never delete.
REVOKE ALL ON "audit_checkpoints", "audit_signing_starts", "audit_signing_keys" FROM :"hub_role";
GRANT SELECT, INSERT ON "audit_checkpoints" TO :"hub_role";
GRANT SELECT ON "audit_signing_starts" TO :"hub_role";
GRANT SELECT, INSERT ON "audit_signing_keys" TO :"hub_role";
GRANT UPDATE ("sealed_private_key", "retired_at") ON "audit_signing_keys" TO :"hub_role";
