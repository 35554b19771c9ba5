/**
 * §8.7.2 the mailbox stream (`GET /v1/inbox/stream?session=`): the session-scoped entries a drain
 * would return, pushed as server-sent events over one held connection — bounded and honest.
 *
 * - **Connecting is the renewal.** The connect presents the session like a drain (§16.3: 404 / 410 /
 *   410 session_closed_by_operator) and renews its lease and presence; staying connected renews
 *   nothing (a zombie socket cannot hold a session alive, R243).
 * - **Each hold is bounded**: it ends at the lower of `stream_max_hold_seconds` and the lease's
 *   `expires_at` minus a nonzero margin (lib/env.ts `leaseMarginMs`), so an immediate reconnect
 *   lands while the lease still runs (R244). Then the server closes; the client reconnects.
 * - **A push is provisional** (R245): it starts the entry's visibility window (drain.ts
 *   `claimEntries(…, provisional)`) but does not mark it delivered — an ack, or a drain after the
 *   window, does.
 * - **An ended session ends its streams at once**: its end NOTIFYs `sessionWakeKey` (lib/sessions/end.ts),
 *   and every wake re-reads the session row.
 * - A stream holds one of the agent's parked-request slots for its whole life.
 */
import { clock } from "../clock";
import { db } from "../db";
import { inboundLimits, streamLimits } from "../env";
import { acquireAgentSlot, type Release } from "../limits/parked";
import { terminalWaiters } from "../messages/waiters";
import { recordAgentSeen } from "../presence/seen";
import type { AgentPrincipal } from "../principals/types";
import { processWide } from "../process-wide";
import { mailboxWakeKey, sessionWakeKey } from "../pubsub/terminal";
import { leaseHoldEnd, presentSession } from "../sessions/lease";
import { ackKeyOf, claimEntries, type DrainedEntry, nextRedelivery, signedEntries } from "./drain";

/** §8.7.2 keep-alive comments at most this far apart (the 15 s). */
export const KEEP_ALIVE_MS = 15_000;
/** What a client waits before reconnecting after the server closes a hold (the SSE `retry:` field). */
const RECONNECT_MS = 500;

/** Counted per process, not per copy of this module: the gauge reads the one count. */
const held = () => processWide("ma2h.mailbox-streams", () => ({ open: 0 }));

/** Mailbox streams held open by this web process now (the `ma2h_parked_requests` gauge). */
export function mailboxStreamCount(): number {
  return held().open;
}

export interface MailboxStream {
  sessionId: string;
  /** When this hold ends (the server closes the stream then). */
  holdUntil: Date;
  /** Runs the hold: pushes entries through `send` until the bound, an end of the session, or `signal`. */
  run(send: (chunk: string) => boolean, signal: AbortSignal): Promise<void>;
  /** Gives the parked slot back; idempotent. */
  release: Release;
}

/** One entry as an SSE event: `id:` is its ack key, `data:` the drain's item, signed for this push. */
export function entryEvent(entry: DrainedEntry): string {
  return `event: entry\nid: ${ackKeyOf(entry)}\ndata: ${JSON.stringify(entry)}\n\n`;
}

/**
 * Opens a hold for the caller's own live session: the §16.3 connect touchpoint (renewing the lease),
 * the agent's presence (§15.1: a connect is reachability traffic), and a parked slot (429 over the cap).
 */
export async function openMailboxStream(principal: AgentPrincipal, sessionId: string): Promise<MailboxStream> {
  const session = await presentSession(principal, sessionId, { touchpoint: "presented", renew: true });
  await recordAgentSeen(principal.agentRowId);
  const release = await acquireAgentSlot(principal);
  const now = clock.now();
  const byLease = leaseHoldEnd(session).getTime();
  const byHold = now.getTime() + streamLimits().maxHoldSeconds * 1000;
  const holdUntil = new Date(Math.max(now.getTime(), Math.min(byLease, byHold)));
  return {
    sessionId: session.id,
    holdUntil,
    release,
    run: (send, signal) => hold({ principal, sessionId: session.id, holdUntil, send, signal }),
  };
}

/** Whether the session is still live at `now` (a re-read: its end may have happened anywhere). */
async function stillLive(sessionId: string, now: Date): Promise<boolean> {
  const row = await db().agentSession.findUnique({
    where: { id: sessionId },
    select: { state: true, expiresAt: true },
  });
  return row !== null && row.state === "active" && row.expiresAt > now;
}

/** One hold: whose, which session, until when, where its chunks go, and the client's hang-up. */
interface Hold {
  principal: AgentPrincipal;
  sessionId: string;
  holdUntil: Date;
  send: (chunk: string) => boolean;
  signal: AbortSignal;
}

async function hold(h: Hold): Promise<void> {
  await terminalWaiters().ready();
  held().open += 1;
  try {
    await pushUntil(h);
  } finally {
    held().open -= 1;
  }
}

async function pushUntil({ principal, sessionId, holdUntil, send, signal }: Hold): Promise<void> {
  const waiters = terminalWaiters();
  const max = inboundLimits().maxBatch;
  if (!send(`retry: ${RECONNECT_MS}\n: hold until ${holdUntil.toISOString()}\n\n`)) return;
  let lastWrite = Date.now();
  while (!signal.aborted && !waiters.closing) {
    const now = clock.now();
    const left = holdUntil.getTime() - now.getTime();
    if (left <= 0) return;
    // Registered before the reads, so a commit in between still wakes this hold.
    const mailbox = waiters.wait(mailboxWakeKey(principal.agentRowId), left, signal);
    const ended = waiters.wait(sessionWakeKey(sessionId), left, signal);
    try {
      if (!(await stillLive(sessionId, now))) return;
      const rows = await claimEntries(principal.agentRowId, sessionId, max, now, true);
      if (rows.length > 0) {
        for (const entry of await signedEntries(rows)) if (!send(entryEvent(entry))) return;
        lastWrite = Date.now();
        continue; // there may be more than one batch
      }
      const redelivery = await nextRedelivery(principal.agentRowId, sessionId, now);
      const untilRedelivery = redelivery ? redelivery.getTime() + 1 - now.getTime() : Infinity;
      const untilKeepAlive = lastWrite + KEEP_ALIVE_MS - Date.now();
      const nap = Math.max(0, Math.min(untilRedelivery, untilKeepAlive, left));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const napped = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, nap);
      });
      await Promise.race([mailbox.promise, ended.promise, napped]);
      clearTimeout(timer);
      if (Date.now() - lastWrite >= KEEP_ALIVE_MS - 50) {
        if (!send(": keep-alive\n\n")) return;
        lastWrite = Date.now();
      }
    } finally {
      mailbox.cancel();
      ended.cancel();
    }
  }
}
