-- Signed checkpoints of the audit chain (lib/audit/checkpoints.ts, docs/security.md): after each
-- sealing batch the worker signs (stream, seq, hash) with an ed25519 key whose private half is
-- sealed like the push keys' and whose public half is published at /.well-known/ma2h-audit-keys.
-- Whoever can write the table but does not hold the Hub's secret cannot re-chain rows under a
-- checkpoint: the signed hash no longer matches.

-- CreateTable
CREATE TABLE "audit_signing_keys" (
    "kid" TEXT NOT NULL,
    "public_key" TEXT NOT NULL,
    "sealed_private_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "audit_signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateTable
CREATE TABLE "audit_checkpoints" (
    "id" BIGSERIAL NOT NULL,
    "stream" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "hash" TEXT NOT NULL,
    "kid" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "audit_checkpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_signing_starts" (
    "stream" TEXT NOT NULL,
    "first_signed_seq" BIGINT NOT NULL,

    CONSTRAINT "audit_signing_starts_pkey" PRIMARY KEY ("stream")
);

-- CreateIndex
CREATE UNIQUE INDEX "audit_checkpoints_stream_seq_key" ON "audit_checkpoints"("stream", "seq");

-- Rows sealed before this upgrade were chained with SHA-256 alone: `ma2h-hub audit verify` reports
-- each such stream as "unsigned before seq N", and the worker's first checkpoint of the stream
-- covers them (it signs the head their hashes lead to).
INSERT INTO "audit_signing_starts" ("stream", "first_signed_seq")
SELECT CASE WHEN "account_id" IS NOT NULL THEN 'account:' || "account_id" ELSE 'user:' || "user_id" END,
       max("seq") + 1
  FROM "audit_events" WHERE "seq" IS NOT NULL
 GROUP BY "account_id", "user_id";

-- The trigger functions run with a fixed search_path and schema-qualified calls: a function or
-- operator of the same name created in another schema on the role's path cannot stand in for them.
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
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
     AND (pg_catalog.to_jsonb(NEW) OPERATOR(pg_catalog.-) 'seq'::pg_catalog.text
            OPERATOR(pg_catalog.-) 'prev_hash'::pg_catalog.text OPERATOR(pg_catalog.-) 'hash'::pg_catalog.text)
         OPERATOR(pg_catalog.=)
         (pg_catalog.to_jsonb(OLD) OPERATOR(pg_catalog.-) 'seq'::pg_catalog.text
            OPERATOR(pg_catalog.-) 'prev_hash'::pg_catalog.text OPERATOR(pg_catalog.-) 'hash'::pg_catalog.text) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE OR REPLACE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END $$;

-- A checkpoint, a signing start and a signing key are written once and never changed or removed
-- (a retired key still verifies the checkpoints it signed).
CREATE TRIGGER "audit_checkpoints_append_only"
  BEFORE UPDATE OR DELETE ON "audit_checkpoints"
  FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER "audit_checkpoints_no_truncate"
  BEFORE TRUNCATE ON "audit_checkpoints"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER "audit_signing_starts_append_only"
  BEFORE UPDATE OR DELETE ON "audit_signing_starts"
  FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER "audit_signing_starts_no_truncate"
  BEFORE TRUNCATE ON "audit_signing_starts"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER "audit_signing_keys_no_delete"
  BEFORE DELETE ON "audit_signing_keys"
  FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER "audit_signing_keys_no_truncate"
  BEFORE TRUNCATE ON "audit_signing_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();
