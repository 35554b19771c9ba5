/**
 * §8.2 pull. `?wait=` holds the request until the message turns terminal (woken by NOTIFY, see
 * waiters.ts) or the clamped wait runs out; `?since=` answers "unchanged" (304) when the status has
 * not changed after that instant. Nobody reads `open` past `expires_at`: an overdue open message is
 * expired on read, through the same CAS — and likewise an addressed one whose delivery ended
 * undeliverable is auto-resolved on read (§7) if the worker has not done it yet.
 *
 * Every authenticated GET is §15.1 presence traffic (with or without `?wait`), and a GET that
 * returns a resolved message's body is the §14.2 pull delivery: it stamps `delivered-to-agent`.
 */
import { clock } from "../clock";
import { limits } from "../env";
import { acquireAgentSlot, type Release } from "../limits/parked";
import { recordAgentSeenThrottled } from "../presence/throttle";
import { HubError } from "@ma2h/protocol/errors";
import type { AgentPrincipal } from "../principals/types";
import { loadForSubmitter, loadMessage, loadMessageBatched } from "./access";
import { applyOwedTerminal, owesUndeliverable } from "./undeliverable";
import { stampDeliveredToAgent } from "./delivery-track";
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

/**
 * The row as it is now (an overdue one expired first). A long-poll (`shared`) joins this process's
 * in-flight read of the same id, and reads in one statement with the other long-polls woken with it. Exported for the MCP task view (lib/mcp/task-store.ts), which reads
 * a status without delivering the answer.
 */
export async function current(principal: AgentPrincipal, id: string, shared = false): Promise<MessageWithResolution> {
  const load = shared ? (mid: string) => terminalWaiters().shared(mid, () => loadMessageBatched(mid)) : loadMessage;
  const row = await loadForSubmitter(principal, id, load);
  const overdue = row.status === "open" && row.expiresAt && row.expiresAt.getTime() < clock.now().getTime();
  // Nobody reads `open` past `expires_at`, nor beside an ended addressed delivery (§7, §14.2).
  if (overdue || owesUndeliverable(row)) {
    await applyOwedTerminal(id);
    return loadForSubmitter(principal, id);
  }
  return row;
}

export async function readMessage(
  principal: AgentPrincipal,
  id: string,
  options: ReadOptions = {},
): Promise<ReadResult> {
  // §15.1: the agent's own authenticated GET is reachability traffic, whatever it reads.
  await recordAgentSeenThrottled(principal.agentRowId);
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
    // A slot of the agent's parked-request cap, taken only when it is about to park (an answer
    // ready at once costs none) and released in the `finally` on every way out.
    let held: Release | null = null;
    try {
      row = await current(principal, id, true);
      for (;;) {
        const remaining = deadline - clock.now().getTime();
        if (settled(row) || remaining <= 0 || !waiting) break;
        held ??= await acquireAgentSlot(principal);
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
      held?.();
    }
    // The agent was listening for the whole hold: its presence is as fresh as the answer.
    if (!options.signal?.aborted) await recordAgentSeenThrottled(principal.agentRowId);
  }
  if (!changedSince(row, options.since)) return { notModified: true };
  if (row.resolution && row.resolution.deliveredToAgentAt === null && row.type !== "notify") {
    // A long-poll whose client went away returns nothing to anyone: no delivery to record (§14.2).
    if (options.signal?.aborted) return { notModified: false, body: messageBody(row) };
    row = await deliveredOnRead(principal, row);
  }
  return { notModified: false, body: messageBody(row) };
}

/**
 * §14.2: the submitter's authenticated GET of the resolved message delivers the answer. Stamped
 * before the body is built, so this very body already says `delivered-to-agent`. When retention
 * purged the message meanwhile the stamp finds nothing and the caller gets the purged answer (410),
 * never a body whose track the audit trail records as `expired`.
 */
async function deliveredOnRead(principal: AgentPrincipal, row: MessageWithResolution): Promise<MessageWithResolution> {
  const resolution = row.resolution as NonNullable<MessageWithResolution["resolution"]>;
  const at = await stampDeliveredToAgent(resolution.id, clock.now(), "pull", `agent:${principal.agentId}`);
  if (at === null) throw new HubError("gone", "message was deleted after its retention period");
  return { ...row, resolution: { ...resolution, deliveredToAgentAt: at } };
}
