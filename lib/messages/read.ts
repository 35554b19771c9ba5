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
  let row = await current(principal, id, waitMs > 0);
  const settled = (r: MessageWithResolution) =>
    r.status !== "open" || (options.since !== undefined && changedSince(r, options.since));

  if (waitMs > 0 && !settled(row)) {
    const waiters = terminalWaiters();
    const deadline = clock.now().getTime() + waitMs;
    await waiters.ready();
    // Registered before the re-read, so a commit landing in between still wakes us.
    for (;;) {
      const remaining = deadline - clock.now().getTime();
      if (remaining <= 0 || options.signal?.aborted || waiters.closing) break;
      const untilExpiry = row.expiresAt ? row.expiresAt.getTime() + 1 - clock.now().getTime() : Infinity;
      const waiting = waiters.wait(id, Math.min(remaining, Math.max(untilExpiry, 0)), options.signal);
      row = await current(principal, id, true);
      if (settled(row)) {
        waiting.cancel();
        break;
      }
      await waiting.promise;
      row = await current(principal, id, true);
      if (settled(row)) break;
    }
  }
  if (!changedSince(row, options.since)) return { notModified: true };
  return { notModified: false, body: messageBody(row) };
}
