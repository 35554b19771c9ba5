/**
 * §14.2 the ask/task response track: answered → delivered-to-agent → acknowledged, or (v0.5)
 * `expired` when retention passes short of delivered-to-agent. Orthogonal to the §7 resolution: it
 * lives on the Resolution row (`delivered_to_agent_at`, `acked_*`) and never gates or rewrites it.
 *
 * Stamps are first-wins conditional UPDATEs, each with its audit event in the same statement, so a
 * stamp and its audit row commit together or not at all.
 */
import type { Resolution } from "../generated/prisma/client";
import type { Ack } from "@ma2h/protocol/ack";
import { HUB_VERSION, parseVersion } from "@ma2h/protocol/versions";
import { processWide } from "../process-wide";
import { recordDelivery } from "../telemetry/spans";
import {
  type DeliveryVia,
  readDeliveredToAgentAt,
  runStampDelivered,
  runStampDeliveredMany,
  type StampRequest,
} from "./delivery-track.sql";

/**
 * Stamps `delivered-to-agent` once (the first stamp wins, §14.2): a 2xx push (`via: "push"`) or the
 * submitter's authenticated GET that returned the terminal body (`via: "pull"`). Returns the
 * track's delivered time — ours or the earlier winner's — or null when the resolution no longer
 * exists (retention purged the message while we were stamping: the caller must not present it as
 * delivered, §14.2 "expired never after delivered").
 *
 * Under retention's row lock (retention.ts) this UPDATE waits for the purge to commit, and then
 * matches nothing: the purge decided `expired` and the reader answers `410`.
 */
export function stampDeliveredToAgent(
  resolutionId: string,
  at: Date,
  via: DeliveryVia,
  actor: string,
): Promise<Date | null> {
  // Long-polls woken by one commit all return the same answer: one stamp per process, shared.
  const running = inFlight().get(resolutionId);
  if (running) return running;
  const stamp = stampOnce(resolutionId, at, via, actor).finally(() => inFlight().delete(resolutionId));
  inFlight().set(resolutionId, stamp);
  return stamp;
}

/** The stamps running now, shared by both copies of this module (the lane's and Next's) in a process. */
const inFlight = () => processWide("ma2h.delivery-stamps", () => new Map<string, Promise<Date | null>>());

type Due = Array<{ stamp: StampRequest; won: (won: boolean) => void; fail: (err: unknown) => void }>;

/**
 * Whether this stamp won, written in one statement with the other stamps asked for in the same turn
 * of the event loop: the long-polls one burst of NOTIFYs wakes are answered together, so their stamps
 * share one statement and one commit instead of one each. A stamp alone runs the single statement.
 */
function stampInBatch(stamp: StampRequest): Promise<boolean> {
  const batch = processWide("ma2h.delivery-stamp-batch", () => ({ due: null as Due | null }));
  return new Promise((won, fail) => {
    if (!batch.due) {
      const due: Due = [];
      batch.due = due;
      setImmediate(() => {
        batch.due = null;
        void runBatch(due);
      });
    }
    batch.due.push({ stamp, won, fail });
  });
}

async function runBatch(due: Due): Promise<void> {
  try {
    if (due.length === 1) {
      const [only] = due as [Due[number]];
      const { resolutionId, at, via, actor } = only.stamp;
      only.won(await runStampDelivered(resolutionId, at, via, actor));
      return;
    }
    const won = await runStampDeliveredMany(due.map((d) => d.stamp));
    for (const d of due) d.won(won.has(d.stamp.resolutionId));
  } catch (err) {
    for (const d of due) d.fail(err);
  }
}

async function stampOnce(resolutionId: string, at: Date, via: DeliveryVia, actor: string): Promise<Date | null> {
  if (await stampInBatch({ resolutionId, at, via, actor })) {
    await recordDelivery(resolutionId, via, at);
    return at;
  }
  // Lost to an earlier stamp, or the row is gone. A fresh statement sees what the UPDATE waited for.
  return (await readDeliveredToAgentAt(resolutionId)) ?? null;
}

export interface DeliveryTrack {
  state: "delivered-to-agent" | "acknowledged";
  delivered_at: string;
  acknowledged_at?: string;
  ack?: Ack;
}

type TrackColumns = Pick<Resolution, "id" | "deliveredToAgentAt" | "ackedAt" | "ackBy" | "ackNote" | "ackResolutionId">;

/**
 * The §14.1 ack envelope as stored: the first ack's attested `by`, time, note and echoed
 * `resolution_id`, at the message's own minor when it is ≥ 0.4 (the ack primitive's floor), else
 * the Hub's 0.5 (docs/decisions/delivery-and-push.md "Ack version").
 */
export function storedAck(messageId: string, messageVersion: string, r: TrackColumns): Ack | null {
  if (r.ackedAt === null || r.ackBy === null) return null;
  const ack: Ack = {
    ma2h_version: ackVersion(messageVersion),
    type: "ack",
    in_reply_to: messageId,
    by: r.ackBy,
    acked_at: r.ackedAt.toISOString(),
  };
  if (r.ackNote !== null) ack.note = r.ackNote;
  if (r.ackResolutionId !== null) ack.resolution_id = r.ackResolutionId;
  return ack;
}

/**
 * §14.1 the ack's `ma2h_version`: the acknowledged message's own when its minor is ≥ 4 (as a
 * Response is at the version carried, §10) and no higher than the Hub's — the Hub never claims a
 * version it does not speak, so a message from a newer minor is acked at the Hub's — else the Hub's:
 * the ack primitive does not exist below 0.4 and ack.schema.json requires a minor ≥ 4. The Hub's is
 * HUB_VERSION, never a literal, so a version bump cannot leave it behind.
 */
export function ackVersion(messageVersion: string): string {
  const m = /^0\.(\d+)$/u.exec(messageVersion);
  const hub = parseVersion(HUB_VERSION);
  const minor = m ? Number(m[1]) : -1;
  return minor >= 4 && hub !== null && minor <= hub.minor ? messageVersion : HUB_VERSION;
}

/**
 * The §8.2 `delivery` object, or undefined while the answer has not reached the agent (and always
 * for a message without a resolution: open asks/tasks and notifies). `expired` never appears here:
 * it is reached only when retention deletes the message, after which there is no GET body to carry
 * it; it is recorded in the audit trail instead (retention.ts).
 */
export function deliveryTrack(
  messageId: string,
  messageVersion: string,
  r: TrackColumns | null,
): DeliveryTrack | undefined {
  if (!r || r.deliveredToAgentAt === null) return undefined;
  const ack = storedAck(messageId, messageVersion, r);
  if (ack === null || r.ackedAt === null)
    return { state: "delivered-to-agent", delivered_at: r.deliveredToAgentAt.toISOString() };
  return {
    state: "acknowledged",
    delivered_at: r.deliveredToAgentAt.toISOString(),
    acknowledged_at: r.ackedAt.toISOString(),
    ack,
  };
}
