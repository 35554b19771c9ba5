/**
 * §8.2 pull. `?wait=` holds the request until the message turns terminal (woken by NOTIFY, see
 * waiters.ts) or the clamped wait runs out; `?since=` answers "unchanged" (304) when the status has
 * not changed after that instant. Nobody reads `open` past `expires_at`: an overdue open message is
 * expired on read, through the same CAS.
 */
import { clock } from "../clock";
import { limits } from "../env";
import type { AgentPrincipal } from "../principals/types";
import { loadForSubmitter, loadMessage } from "./access";
import { expireMessage } from "./expiry";
import { messageBody } from "./serialize";
import type { MessageWithResolution } from "./record";
import { terminalWaiters } from "./waiters";

export interface ReadOptions {
  /** Requested long-poll seconds; clamped to the server maximum (≤ 60), never rejected. */
  waitSeconds?: number;
  since?: Date;
  signal?: AbortSignal;
}

export type ReadResult = { notModified: true } | { notModified: false; body: Record<string, unknown> };

function changedSince(row: MessageWithResolution, since: Date | undefined): boolean {
  return since === undefined || row.statusChangedAt.getTime() > since.getTime();
}

/** The row as it is now. A long-poll (`shared`) joins this process's in-flight read of the same id. */
async function current(principal: AgentPrincipal, id: string, shared = false): Promise<MessageWithResolution> {
  const load = shared ? (mid: string) => terminalWaiters().shared(mid, () => loadMessage(mid)) : loadMessage;
  const row = await loadForSubmitter(principal, id, load);
  if (row.status === "open" && row.expiresAt && row.expiresAt.getTime() < clock.now().getTime()) {
    await expireMessage(id);
    return loadForSubmitter(principal, id);
  }
  return row;
}

export async function readMessage(principal: AgentPrincipal, id: string, options: ReadOptions = {}): Promise<ReadResult> {
  const waitMs = Math.min(Math.max(options.waitSeconds ?? 0, 0), limits().maxWaitSeconds) * 1000;
  const settled = (r: MessageWithResolution) =>
    r.status !== "open" || (options.since !== undefined && changedSince(r, options.since));
  let row: MessageWithResolution;

  if (waitMs <= 0) {
    row = await current(principal, id);
  } else {
    const waiters = terminalWaiters();
    await waiters.ready();
    const deadline = clock.now().getTime() + waitMs;
    const listening = () => !options.signal?.aborted && !waiters.closing;
    // Registered before every read, so a commit landing between the read and the sleep still wakes
    // us: a long-poll costs one read before it parks and one after each wake (bench:longpoll).
    let waiting = listening() ? waiters.wait(id, waitMs, options.signal) : null;
    try {
      row = await current(principal, id, true);
      for (;;) {
        const remaining = deadline - clock.now().getTime();
        if (settled(row) || remaining <= 0 || !waiting) break;
        // Wake strictly after expires_at, so the re-read applies the expiry (§7).
        const untilExpiry = row.expiresAt ? Math.max(row.expiresAt.getTime() + 1 - clock.now().getTime(), 0) : Infinity;
        if (untilExpiry < remaining) {
          const sooner = waiters.wait(id, untilExpiry, options.signal);
          waiting.cancel();
          waiting = sooner;
        }
        await waiting.promise;
        const left = deadline - clock.now().getTime();
        waiting = left > 0 && listening() ? waiters.wait(id, left, options.signal) : null;
        row = await current(principal, id, true);
      }
    } finally {
      waiting?.cancel();
    }
  }
  if (!changedSince(row, options.since)) return { notModified: true };
  return { notModified: false, body: messageBody(row) };
}
