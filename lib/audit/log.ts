/**
 * Reading the audit trail: who did what, when, to which object. The table is
 * append-only at the database (trigger `audit_events_append_only`); this module only reads it —
 * one account at a time, filtered by actor, kind (`event`) and a time range, newest first for the
 * page and oldest first for the JSON Lines export; or one person's own stream (`listPersonAudit`,
 * no account: their tokens, identities, preferences), which no account query ever matches. `detail` holds ids and names only, never a
 * secret, a credential or a message's content (§9.6), so it is exported as stored. The export also
 * carries each row's stream and seal (`seq`, `prev_hash`, `hash`; null until sealed) — every
 * field the chain hash covers (./chain.ts), so `ma2h-hub audit verify --file` checks it offline.
 */
import type { Prisma } from "../generated/prisma/client";
import { db } from "../db";
import { streamOf } from "./chain";

export interface AuditFilters {
  /** Exact attested actor, e.g. `human:alice`, `agent:deploybot/dev-team`, `system:expiry`. */
  actor?: string;
  /** Exact kind, e.g. `key.revoked`; a trailing `.*` matches a family (`member.*`). */
  event?: string;
  /** Inclusive lower bound. */
  from?: Date;
  /** Exclusive upper bound. */
  to?: Date;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  event: string;
  message_id: string | null;
  detail: unknown;
}

const MAX_FILTER_CHARS = 300;

/**
 * A time bound from a form or query string: RFC 3339, or a `datetime-local` value
 * (`2026-12-02T18:00`), read as UTC — the page labels its inputs UTC.
 */
function parseTime(raw: string | undefined): Date | undefined {
  const v = raw?.trim();
  if (!v) return undefined;
  const withZone = /(?:Z|[+-]\d\d:\d\d)$/i.test(v) ? v : `${v}Z`;
  const d = new Date(withZone);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function text(raw: string | undefined): string | undefined {
  const v = raw?.trim();
  return v ? v.slice(0, MAX_FILTER_CHARS) : undefined;
}

/** The filters a page URL or export URL carries (`actor`, `kind`, `from`, `to`); junk is ignored. */
export function parseAuditFilters(q: Record<string, string | string[] | undefined>): AuditFilters {
  const one = (k: string) => {
    const v = q[k];
    return Array.isArray(v) ? v[0] : v;
  };
  return {
    actor: text(one("actor")),
    event: text(one("kind")),
    from: parseTime(one("from")),
    to: parseTime(one("to")),
  };
}

function whereOf(accountId: string, f: AuditFilters): Prisma.AuditEventWhereInput {
  const at: Prisma.DateTimeFilter = {};
  if (f.from) at.gte = f.from;
  if (f.to) at.lt = f.to;
  const event = f.event?.endsWith(".*") ? { startsWith: f.event.slice(0, -1) } : f.event;
  return {
    accountId,
    ...(f.actor ? { actor: f.actor } : {}),
    ...(event ? { event } : {}),
    ...(f.from || f.to ? { at } : {}),
  };
}

function entryOf(r: {
  id: bigint;
  at: Date;
  actor: string;
  event: string;
  messageId: string | null;
  detail: unknown;
}): AuditEntry {
  return {
    id: r.id.toString(),
    at: r.at.toISOString(),
    actor: r.actor,
    event: r.event,
    message_id: r.messageId,
    detail: r.detail ?? null,
  };
}

const SELECT = { id: true, at: true, actor: true, event: true, messageId: true, detail: true } as const;

/**
 * One page, newest first, keyset-paged on (at, id): `before` is the last entry's cursor
 * (`<iso>_<id>`) of the previous page.
 */
export async function listAudit(
  accountId: string,
  filters: AuditFilters,
  page: AuditPage = {},
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  return pageOf(whereOf(accountId, filters), page);
}

/** One page of a person's own stream (`/settings/activity`), newest first, paged like `listAudit`. */
export async function listPersonAudit(
  userId: string,
  page: AuditPage = {},
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  return pageOf({ userId, accountId: null }, page);
}

export interface AuditPage {
  /** The previous page's `next` cursor. */
  before?: string;
  limit?: number;
}

async function pageOf(
  where: Prisma.AuditEventWhereInput,
  page: AuditPage,
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const limit = Math.min(Math.max(page.limit ?? 100, 1), 500);
  const cursor = parseCursor(page.before);
  const rows = await db().auditEvent.findMany({
    where: cursor
      ? { AND: [where, { OR: [{ at: { lt: cursor.at } }, { at: cursor.at, id: { lt: cursor.id } }] }] }
      : where,
    select: SELECT,
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  const entries = rows.slice(0, limit).map(entryOf);
  const last = entries[entries.length - 1];
  return { entries, next: rows.length > limit && last ? `${last.at}_${last.id}` : null };
}

function parseCursor(raw: string | undefined): { at: Date; id: bigint } | null {
  const m = raw && /^(.+)_(\d{1,19})$/.exec(raw);
  if (!m) return null;
  const at = new Date(m[1]!);
  const id = BigInt(m[2]!);
  // A hand-edited cursor past bigint's range would fail in the database: treat it as no cursor.
  return Number.isNaN(at.getTime()) || id > 9223372036854775807n ? null : { at, id };
}

/** The kinds and actors present in the account's trail, for the page's filter choices. */
export async function auditFacets(accountId: string): Promise<{ kinds: string[]; actors: string[] }> {
  const [kinds, actors] = await Promise.all([
    db().auditEvent.findMany({
      where: { accountId },
      distinct: ["event"],
      select: { event: true },
      orderBy: { event: "asc" },
    }),
    db().auditEvent.findMany({
      where: { accountId },
      distinct: ["actor"],
      select: { actor: true },
      orderBy: { actor: "asc" },
      take: 500,
    }),
  ]);
  return { kinds: kinds.map((k) => k.event), actors: actors.map((a) => a.actor) };
}

const EXPORT_SELECT = { ...SELECT, accountId: true, userId: true, seq: true, prevHash: true, hash: true } as const;

/** One export line: the entry, its stream and its seal — the fields of chain.ts's record, and the hashes. */
export interface AuditExportLine extends AuditEntry {
  stream: string;
  seq: number | null;
  prev_hash: string | null;
  hash: string | null;
}

function exportLineOf(
  r: Parameters<typeof entryOf>[0] & {
    accountId: string | null;
    userId: string | null;
    seq: bigint | null;
    prevHash: string | null;
    hash: string | null;
  },
): AuditExportLine {
  return {
    ...entryOf(r),
    stream: streamOf(r),
    seq: r.seq === null ? null : Number(r.seq),
    prev_hash: r.prevHash,
    hash: r.hash,
  };
}

/**
 * The matching entries as JSON Lines, oldest first, read in batches of 1000 by id so an export of
 * any size holds one batch in memory. An export not filtered by actor or kind ends with the
 * stream's signed checkpoints (`{"checkpoint": {…}}`, ./checkpoints.ts) from the seq before its first
 * sealed line to its last, so `ma2h-hub audit verify --file` checks it against the published keys.
 */
export async function* auditJsonLines(accountId: string, filters: AuditFilters): AsyncGenerator<string> {
  const where = whereOf(accountId, filters);
  let after: bigint | null = null;
  let lowest: bigint | null = null;
  let highest: bigint | null = null;
  for (;;) {
    const batchWhere: Prisma.AuditEventWhereInput = after === null ? where : { AND: [where, { id: { gt: after } }] };
    const rows = await db().auditEvent.findMany({
      where: batchWhere,
      select: EXPORT_SELECT,
      orderBy: { id: "asc" },
      take: 1000,
    });
    for (const r of rows) {
      if (r.seq !== null) {
        if (lowest === null || r.seq < lowest) lowest = r.seq;
        if (highest === null || r.seq > highest) highest = r.seq;
      }
      yield `${JSON.stringify(exportLineOf(r))}\n`;
    }
    if (rows.length < 1000) break;
    after = rows[rows.length - 1]!.id as bigint;
  }
  if (lowest === null || highest === null || filters.actor !== undefined || filters.event !== undefined) return;
  let from = lowest - 1n;
  for (;;) {
    const cps = await db().auditCheckpoint.findMany({
      where: { stream: `account:${accountId}`, seq: { gte: from, lte: highest } },
      orderBy: { seq: "asc" },
      take: 1000,
    });
    for (const c of cps)
      yield `${JSON.stringify({
        checkpoint: {
          stream: c.stream,
          seq: Number(c.seq),
          hash: c.hash,
          kid: c.kid,
          signature: c.signature,
          at: c.at.toISOString(),
        },
      })}\n`;
    if (cps.length < 1000) return;
    from = cps[cps.length - 1]!.seq + 1n;
  }
}
