-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "priority_rank" SMALLINT NOT NULL DEFAULT 2,
ADD COLUMN     "project" TEXT,
ADD COLUMN     "tags" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE INDEX "messages_inbox_order_idx" ON "messages"("account_id", "status", "priority_rank", "created_at", "id");

-- CreateIndex
CREATE INDEX "messages_inbox_recent_idx" ON "messages"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "messages_tags_idx" ON "messages" USING GIN ("tags");

-- Backfill the listing columns from the stored envelopes, with the limits lib/messages/listing.ts
-- applies on submit (no project or tag over 200 characters, at most 32 tags: index entry size)
UPDATE "messages" SET
  "priority_rank" = CASE "priority" WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'low' THEN 3 ELSE 2 END,
  "project" = CASE WHEN length("envelope"::jsonb -> 'agent' ->> 'project') <= 200 THEN "envelope"::jsonb -> 'agent' ->> 'project' END,
  "tags" = COALESCE(
    (SELECT (array_agg(DISTINCT t))[1:32] FROM jsonb_array_elements_text(
      CASE WHEN jsonb_typeof("envelope"::jsonb -> 'tags') = 'array' THEN "envelope"::jsonb -> 'tags' ELSE '[]'::jsonb END) AS t
     WHERE length(t) <= 200),
    ARRAY[]::TEXT[]);

-- Title search (ILIKE '%...%') uses a trigram index where the pg_trgm extension can be created,
-- else it is a filtered scan of the account's rows (docs/PERFORMANCE.md, Inbox). Kept out of
-- schema.prisma (Prisma cannot express operator classes). The migration generator's PGlite has no
-- pg_trgm, so it never sees this index and never proposes to drop it.
-- The driver adapter splits scripts at every semicolon (even inside comments or dollar quotes),
-- so the block is an E'' string whose semicolons are written as the escape \073.
DO E'BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm\073 CREATE INDEX IF NOT EXISTS "messages_title_trgm_idx" ON "messages" USING GIN ("title" gin_trgm_ops)\073 EXCEPTION WHEN OTHERS THEN NULL\073 END';
