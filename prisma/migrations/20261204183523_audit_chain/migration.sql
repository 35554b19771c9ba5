-- AlterTable
ALTER TABLE "audit_events" ADD COLUMN     "hash" TEXT,
ADD COLUMN     "prev_hash" TEXT,
ADD COLUMN     "seq" BIGINT;

-- CreateTable
CREATE TABLE "audit_tombstones" (
    "id" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "last_seq" BIGINT NOT NULL,
    "last_hash" TEXT NOT NULL,
    "erased_rows" BIGINT NOT NULL,
    "actor" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "audit_tombstones_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_tombstones_account_id_idx" ON "audit_tombstones"("account_id");

-- CreateIndex
CREATE INDEX "audit_events_seq_idx" ON "audit_events"("seq");

-- CreateIndex
CREATE UNIQUE INDEX "audit_events_account_id_seq_key" ON "audit_events"("account_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "audit_events_user_id_seq_key" ON "audit_events"("user_id", "seq");

-- The tamper-evident audit trail (#19, lib/audit/chain.ts, docs/security.md). A row is written plain
-- by the request's transaction and sealed once by the worker (seq, prev_hash, hash all set together).
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_seal_whole"
  CHECK ((("seq" IS NULL) = ("prev_hash" IS NULL)) AND (("seq" IS NULL) = ("hash" IS NULL)));
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_seal_shape"
  CHECK ("seq" IS NULL OR ("seq" >= 1 AND "prev_hash" ~ '^[0-9a-f]{64}$' AND "hash" ~ '^[0-9a-f]{64}$'));

-- Append-only, with no bypass: the session-settable `ma2h.allow_audit_delete` of issue #6 is gone
-- (any role that can write rows could set it). A row is inserted unsealed and may be updated exactly
-- once — its seal, nothing else changed; every other UPDATE and every DELETE is refused. Erasing an
-- account is `ma2h-hub account purge`, which runs as the table's owner and disables this trigger
-- inside its own transaction (an owner-only act; see lib/audit/purge.ts).
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.seq IS NOT NULL OR NEW.prev_hash IS NOT NULL OR NEW.hash IS NOT NULL THEN
      RAISE EXCEPTION 'audit_events rows are inserted unsealed' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE'
     AND OLD.seq IS NULL AND OLD.prev_hash IS NULL AND OLD.hash IS NULL
     AND NEW.seq IS NOT NULL AND NEW.prev_hash IS NOT NULL AND NEW.hash IS NOT NULL
     AND (to_jsonb(NEW) - 'seq' - 'prev_hash' - 'hash') = (to_jsonb(OLD) - 'seq' - 'prev_hash' - 'hash') THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;

DROP TRIGGER "audit_events_append_only" ON "audit_events";
CREATE TRIGGER "audit_events_append_only"
  BEFORE INSERT OR UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

-- TRUNCATE fires no row trigger: a statement-level one refuses it (for the tombstones too).
CREATE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER "audit_events_no_truncate"
  BEFORE TRUNCATE ON "audit_events"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();

-- A tombstone is written once and never changed or removed.
CREATE TRIGGER "audit_tombstones_append_only"
  BEFORE UPDATE OR DELETE ON "audit_tombstones"
  FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER "audit_tombstones_no_truncate"
  BEFORE TRUNCATE ON "audit_tombstones"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();
