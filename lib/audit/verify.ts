/**
 * `ma2h-hub audit verify`: recomputes the hash chains (./chain.ts) of the live trail — one account's
 * stream, or every stream — or of a JSON Lines export, checks them against the signed checkpoints
 * (./checkpoints.ts), and names the first row that does not hold. Live, unsealed rows are counted,
 * not judged (the worker seals them within seconds); in an export they are refused unless asked.
 */
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import {
  AUDIT_GENESIS,
  type AuditStream,
  type ChainBreak,
  ChainWalker,
  type Checkpoint,
  type CheckpointKeys,
  checkpointSigned,
  recordOf,
  type SealedRecord,
  streamOf,
} from "./chain";
import { trustedAuditKeys } from "./checkpoints";
import { countUnsealed, readEveryStream, readSealedRowsAfter } from "./verify.sql";

export interface VerifyReport {
  verified: number;
  unsealed: number;
  /** Signed checkpoints that confirmed the chain. */
  checkpoints: number;
  /** Streams whose rows below `seq` were sealed before checkpoints existed (SHA-256 chained only). */
  unsigned_before: { stream: string; seq: number }[];
  first_broken: ChainBreak | null;
}

const BATCH = 1000;

const emptyReport = (): VerifyReport => ({
  verified: 0,
  unsealed: 0,
  checkpoints: 0,
  unsigned_before: [],
  first_broken: null,
});

function merge(into: VerifyReport, r: VerifyReport): void {
  into.verified += r.verified;
  into.unsealed += r.unsealed;
  into.checkpoints += r.checkpoints;
  into.unsigned_before.push(...r.unsigned_before);
  // Across streams, the earliest row wins (ids are the table's sequence), so a report does not depend
  // on the order the streams were walked in.
  if (r.first_broken && (!into.first_broken || earlier(r.first_broken.id, into.first_broken.id))) {
    into.first_broken = r.first_broken;
  }
}

/** Whether break id `a` comes before `b`: row ids by number; a row before a checkpoint or line name. */
function earlier(a: string, b: string): boolean {
  const row = /^\d+$/u;
  if (row.test(a) && row.test(b)) return BigInt(a) < BigInt(b);
  return row.test(a) && !row.test(b);
}

/** Splits checkpoints into the validly signed ones and the first that is not (a break). */
function signedOnly(list: Checkpoint[], keys: CheckpointKeys): { good: Checkpoint[]; bad: ChainBreak | null } {
  const good: Checkpoint[] = [];
  let bad: ChainBreak | null = null;
  for (const c of list) {
    if (checkpointSigned(c, keys)) good.push(c);
    else bad ??= { id: `checkpoint ${c.stream} seq ${c.seq}`, reason: "bad_signature" };
  }
  return { good, bad };
}

/**
 * One stream from its first seal on: seq 1 links to the genesis, every next seq to the one before,
 * every signed checkpoint names the hash its seq has, and no sealed row lies past the last one.
 */
async function verifyStream(s: AuditStream, keys: CheckpointKeys): Promise<VerifyReport> {
  const name = streamOf(s);
  const walker = new ChainWalker({ seq: 1, prevHash: AUDIT_GENESIS });
  let badSignature: ChainBreak | null = null;
  let after = 0n;
  for (;;) {
    const rows = await readSealedRowsAfter(s, after, BATCH);
    const last = rows.length > 0 ? rows[rows.length - 1]!.seq : after;
    const cps = await db().auditCheckpoint.findMany({
      where: { stream: name, seq: { gt: after, lte: last } },
      select: { stream: true, seq: true, hash: true, kid: true, signature: true },
    });
    const { good, bad } = signedOnly(
      cps.map((c) => ({ ...c, seq: Number(c.seq) })),
      keys,
    );
    badSignature ??= bad;
    walker.confirmWith(good);
    for (const r of rows) {
      if (!walker.step({ ...recordOf(r, Number(r.seq)), prev_hash: r.prev_hash, hash: r.hash })) break;
    }
    if (walker.broken || rows.length < BATCH) {
      after = last;
      break;
    }
    after = last;
  }
  if (!walker.broken) {
    // A checkpoint past the last row: sealed rows were removed from the end of the stream.
    const beyond = await db().auditCheckpoint.findFirst({
      where: { stream: name, seq: { gt: after } },
      orderBy: { seq: "asc" },
      select: { stream: true, seq: true, hash: true, kid: true, signature: true },
    });
    if (beyond && checkpointSigned({ ...beyond, seq: Number(beyond.seq) }, keys))
      walker.broken = { id: `seq ${after + 1n}`, reason: "seq_gap" };
  }
  walker.finish(false);
  const unsealed = await countUnsealed(s);
  const start = await db().auditSigningStart.findUnique({ where: { stream: name } });
  return {
    verified: walker.verified,
    unsealed,
    checkpoints: walker.checkpointed,
    unsigned_before: start && start.firstSignedSeq > 1n ? [{ stream: name, seq: Number(start.firstSignedSeq) }] : [],
    first_broken: walker.broken ?? badSignature,
  };
}

/**
 * The live trail: one account's stream (by slug), or every account's and every person's. The keys
 * are the Hub's own (their sealed private halves open under this process's secret).
 */
export async function verifyLive(accountSlug?: string): Promise<VerifyReport> {
  let streams: AuditStream[];
  if (accountSlug !== undefined) {
    const account = await db().account.findUnique({ where: { slug: accountSlug }, select: { id: true } });
    if (!account) throw new HubError("not_found", `no account ${accountSlug}`);
    streams = [{ accountId: account.id, userId: null }];
  } else {
    streams = await readEveryStream();
  }
  const keys = await trustedAuditKeys();
  const report = emptyReport();
  for (const s of streams) merge(report, await verifyStream(s, keys));
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

/** A checkpoint line of an export: `{"checkpoint": {stream, seq, hash, kid, signature, at}}`. */
function checkpointLine(v: unknown): Checkpoint | null {
  if (typeof v !== "object" || v === null || !("checkpoint" in v)) return null;
  const c = (v as { checkpoint: unknown }).checkpoint;
  if (typeof c !== "object" || c === null) return null;
  const o = c as Record<string, unknown>;
  if (typeof o.stream !== "string" || !Number.isSafeInteger(o.seq) || typeof o.hash !== "string") return null;
  if (typeof o.kid !== "string" || typeof o.signature !== "string") return null;
  return { stream: o.stream, seq: o.seq as number, hash: o.hash, kid: o.kid, signature: o.signature };
}

export interface ExportVerifyOptions {
  /** The trusted audit keys (the saved `/.well-known/ma2h-audit-keys`, or the Hub's own). */
  keys: CheckpointKeys;
  /** A hash known from elsewhere: the export's first line must be seq `seq + 1` linking to it. */
  anchor?: { seq: number; hash: string };
  /** Accept lines not sealed yet, and sealed lines past the export's last signed checkpoint. */
  allowUnsealed?: boolean;
}

/** `<seq>:<64 hex>`, as `--anchor` takes it (a checkpoint's or any sealed line's seq and hash). */
export function parseAnchor(text: string): { seq: number; hash: string } | null {
  const m = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim());
  return m ? { seq: Number(m[1]), hash: m[2]! } : null;
}

/**
 * A JSON Lines export (lib/audit/log.ts). Each stream's sealed lines are walked in seq order from a
 * known anchor — the genesis (a first line at seq 1), a validly signed checkpoint line at the seq
 * before the first line, or `anchor` — every hash must recompute, consecutive lines must link, every
 * signed checkpoint line must name its seq's hash, and every line must lie at or before one. An
 * export filtered by actor or kind has gaps, which are breaks (verify an unfiltered export).
 */
export function verifyJsonLines(text: string, opts: ExportVerifyOptions): VerifyReport {
  const report = emptyReport();
  const byStream = new Map<string, SealedRecord[]>();
  const checkpoints: Checkpoint[] = [];
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
    const cp = checkpointLine(parsed);
    if (cp) {
      checkpoints.push(cp);
      continue;
    }
    const line = sealedLine(parsed);
    if (!line) {
      report.first_broken ??= malformed(i + 1);
      continue;
    }
    if (!line.sealed) {
      report.unsealed += 1;
      if (!opts.allowUnsealed) report.first_broken ??= { id: line.id, reason: "unsealed" };
      continue;
    }
    const list = byStream.get(line.stream) ?? [];
    list.push(line);
    byStream.set(line.stream, list);
  }
  const { good, bad } = signedOnly(checkpoints, opts.keys);
  for (const [stream, list] of byStream) {
    list.sort((a, b) => a.seq - b.seq);
    const first = list[0]!;
    const mine = good.filter((c) => c.stream === stream);
    const before = mine.find((c) => c.seq === first.seq - 1);
    const start =
      first.seq === 1
        ? { seq: 1, prevHash: AUDIT_GENESIS }
        : before
          ? { seq: first.seq, prevHash: before.hash }
          : opts.anchor && opts.anchor.seq === first.seq - 1
            ? { seq: first.seq, prevHash: opts.anchor.hash }
            : null;
    if (!start) {
      merge(report, { ...emptyReport(), first_broken: { id: first.id, reason: "no_anchor" } });
      continue;
    }
    const walker = new ChainWalker(start);
    walker.confirmWith(mine.filter((c) => c.seq >= first.seq));
    for (const r of list) if (!walker.step(r)) break;
    walker.finish(opts.allowUnsealed === true);
    merge(report, {
      ...emptyReport(),
      verified: walker.verified,
      checkpoints: walker.checkpointed,
      first_broken: walker.broken,
    });
  }
  report.first_broken ??= bad;
  return report;
}
