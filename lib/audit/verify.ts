/**
 * `ma2h-hub audit verify` (#19): recomputes the hash chains (./chain.ts) of the live trail — one
 * account's stream, or every stream — or of a JSON Lines export, and names the first row that does
 * not hold. Unsealed rows are counted, not judged (the worker seals them within seconds).
 */
import { db } from "../db";
import { HubError } from "../protocol/errors";
import { AUDIT_GENESIS, ChainWalker, type ChainBreak, type SealedRecord, recordOf, type StoredAuditRow } from "./chain";
import { type AuditStream, inStream } from "./seal";

export interface VerifyReport {
  verified: number;
  unsealed: number;
  first_broken: ChainBreak | null;
}

const BATCH = 1000;

function merge(into: VerifyReport, r: VerifyReport): void {
  into.verified += r.verified;
  into.unsealed += r.unsealed;
  into.first_broken ??= r.first_broken;
}

/** One stream from its first seal on: seq 1 links to the genesis, every next seq to the one before. */
async function verifyStream(s: AuditStream): Promise<VerifyReport> {
  const walker = new ChainWalker({ seq: 1, prevHash: AUDIT_GENESIS });
  let after = 0n;
  for (;;) {
    const rows = await db().$queryRaw<(StoredAuditRow & { seq: bigint; prev_hash: string; hash: string })[]>`
      SELECT id, account_id, user_id, message_id, actor, event, detail, at, seq, prev_hash, hash
        FROM audit_events WHERE ${inStream(s)} AND seq > ${after} ORDER BY seq LIMIT ${BATCH}`;
    for (const r of rows) {
      if (!walker.step({ ...recordOf(r, Number(r.seq)), prev_hash: r.prev_hash, hash: r.hash })) break;
    }
    if (walker.broken || rows.length < BATCH) break;
    after = rows[rows.length - 1]!.seq;
  }
  const [count] = await db().$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM audit_events WHERE ${inStream(s)} AND seq IS NULL`;
  return { verified: walker.verified, unsealed: Number(count?.n ?? 0), first_broken: walker.broken };
}

/** The live trail: one account's stream (by slug), or every account's and every person's. */
export async function verifyLive(accountSlug?: string): Promise<VerifyReport> {
  let streams: AuditStream[];
  if (accountSlug !== undefined) {
    const account = await db().account.findUnique({ where: { slug: accountSlug }, select: { id: true } });
    if (!account) throw new HubError("not_found", `no account ${accountSlug}`);
    streams = [{ accountId: account.id, userId: null }];
  } else {
    const rows = await db().$queryRaw<{ account_id: string | null; user_id: string | null }[]>`
      SELECT DISTINCT account_id, user_id FROM audit_events ORDER BY account_id, user_id`;
    streams = rows.map((r) => ({ accountId: r.account_id, userId: r.user_id }));
  }
  const report: VerifyReport = { verified: 0, unsealed: 0, first_broken: null };
  for (const s of streams) merge(report, await verifyStream(s));
  return report;
}

/** A line that is not an export line: named by its line number, as it may have no id. */
function malformed(lineNo: number): ChainBreak {
  return { id: `line ${lineNo}`, reason: "malformed" };
}

function sealedLine(v: unknown): (SealedRecord & { sealed: boolean }) | null {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const str = (x: unknown) => typeof x === "string";
  const strOrNull = (x: unknown) => x === null || str(x);
  if (!str(o.id) || !str(o.stream) || !str(o.at) || !str(o.actor) || !str(o.event) || !strOrNull(o.message_id)) {
    return null;
  }
  const sealed = o.seq !== null && o.seq !== undefined;
  if (sealed && !(Number.isSafeInteger(o.seq) && str(o.prev_hash) && str(o.hash))) return null;
  return {
    id: o.id as string,
    seq: sealed ? (o.seq as number) : 0,
    stream: o.stream as string,
    at: o.at as string,
    actor: o.actor as string,
    event: o.event as string,
    message_id: (o.message_id as string | null) ?? null,
    detail: o.detail ?? null,
    prev_hash: sealed ? (o.prev_hash as string) : "",
    hash: sealed ? (o.hash as string) : "",
    sealed,
  };
}

/**
 * A JSON Lines export (lib/audit/log.ts). Each stream's sealed lines are walked in seq order: every
 * hash must recompute, and consecutive lines must link. The first line of a stream links to the
 * genesis if it is seq 1, else is taken as given — an export cut by time starts mid-chain; an export
 * filtered by actor or kind has gaps, which are breaks (verify an unfiltered export).
 */
export function verifyJsonLines(text: string): VerifyReport {
  const report: VerifyReport = { verified: 0, unsealed: 0, first_broken: null };
  const byStream = new Map<string, SealedRecord[]>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    const line = sealedLine(parsed);
    if (!line) {
      report.first_broken ??= malformed(i + 1);
      continue;
    }
    if (!line.sealed) {
      report.unsealed += 1;
      continue;
    }
    const list = byStream.get(line.stream) ?? [];
    list.push(line);
    byStream.set(line.stream, list);
  }
  for (const list of byStream.values()) {
    list.sort((a, b) => a.seq - b.seq);
    const walker = new ChainWalker(null);
    for (const r of list) if (!walker.step(r)) break;
    merge(report, { verified: walker.verified, unsealed: 0, first_broken: walker.broken });
  }
  return report;
}
