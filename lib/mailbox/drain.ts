/**
 * §8.7 drain (`GET /v1/inbox`): the caller's own live directives, oldest first, each claimed for the
 * visibility window and signed afresh (§9.7). The claim is one statement — `FOR UPDATE SKIP LOCKED`
 * in the subquery — so concurrent drains, in any number of processes, never hand one directive to
 * two callers within a window. A drain that finds nothing may park (`?wait=`, ≤ 60 s) until an
 * author's NOTIFY or the next in-flight directive's window lapses.
 */
import { clock } from "../clock";
import { db } from "../db";
import { inboundLimits, limits } from "../env";
import { activeSigningKey } from "../keys/signing-keys";
import { acquireAgentSlot } from "../limits/parked";
import { terminalWaiters } from "../messages/waiters";
import { recordAgentSeenThrottled } from "../presence/throttle";
import type { Directive } from "@ma2h/protocol/directive";
import { signDirectiveDelivery } from "@ma2h/protocol/inbound-signing";
import { type MessageEntry, signMessageEntry, signReceiptEntry, signResponseEntry } from "@ma2h/protocol/entry-signing";
import { ENTRY_KIND } from "@ma2h/protocol/entry-kinds";
import { loadMessage } from "../messages/access";
import { stampDeliveredToAgent } from "../messages/delivery-track";
import { type HubResponseBody, hubResponse } from "../messages/serialize";
import type { Receipt } from "./receipt";
import type { AgentPrincipal } from "../principals/types";
import { mailboxWakeKey } from "../pubsub/terminal";
import { DIRECTIVE_KIND, deliveredDirective, type MailboxRow } from "./record";
import { runClaimMailboxEntries } from "./drain.sql";

export interface DrainOptions {
  /**
   * §8.7.1 the caller's own live session, already presented (lib/sessions/lease.ts): the drain then
   * also returns the directives addressed to that session. Null or absent: the v0.4 drain.
   */
  sessionId?: string | null;
  /** Requested batch size; clamped to `max_batch`. */
  max?: number;
  /** Requested long-poll seconds; clamped to the server maximum (≤ 60). */
  waitSeconds?: number;
  /**
   * The latest moment a park may last: a drain presenting a session answers before its lease
   * (lib/sessions/lease.ts `leaseHoldEnd`), so the next drain renews a lease that still runs.
   */
  holdUntil?: Date;
  signal?: AbortSignal;
}

/** One delivered entry of any kind, with its detached signature (§8.7.1). */
export type DrainedEntry =
  | { directive: Directive; signature: string }
  | { message: MessageEntry & Record<string, unknown>; signature: string }
  | { response: HubResponseBody; signature: string }
  | { receipt: Receipt; signature: string };

/**
 * Claims up to `max` deliverable entries; every claim hides the row until now + the window.
 * A drain's claim (client-requested, §15) is receipt evidence: first deliveries become `delivered`
 * with `delivered_at` stamped once (§14.2), the claiming session is remembered (a principal-addressed
 * orphan's receipt names it, §14.2), and a `response` entry stamps its Response `delivered-to-agent`.
 * A stream push's claim is `provisional` (§8.7.2): it starts the window and changes nothing else, so
 * an entry pushed into a dead socket stays `queued` and is drainable again after the window.
 * Entries addressed to a session go only to a drain or stream presenting that session; a
 * session-less drain gets principal-addressed directives only — never a v0.5 kind (§8.7.1).
 * Nothing is handed out past its `expires_at` (§9.8).
 */
export async function claimEntries(
  agentRowId: string,
  sessionId: string | null,
  max: number,
  now: Date,
  provisional = false,
): Promise<MailboxRow[]> {
  const visibleAt = new Date(now.getTime() + inboundLimits().visibilityTimeoutSeconds * 1000);
  const ids = await runClaimMailboxEntries({ agentRowId, sessionId, max, now, visibleAt, provisional });
  if (ids.length === 0) return [];
  const rows = await db().mailboxEntry.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
    include: { agent: { select: { agentId: true } } },
    orderBy: { seq: "asc" },
  });
  if (!provisional) {
    // §8.7.1 / §14.2: the drain that returns a `response` entry delivers the answer to the agent.
    for (const row of rows.filter((r) => r.kind === ENTRY_KIND.response)) {
      await stampDeliveredToAgent(row.id, now, "mailbox", `agent:${row.agent.agentId}`);
    }
  }
  return rows;
}

/** When the earliest in-flight directive of this mailbox becomes drainable again, if any. */
export async function nextRedelivery(agentRowId: string, sessionId: string | null, now: Date): Promise<Date | null> {
  const next = await db().mailboxEntry.findFirst({
    where: {
      agentRowId,
      ...(sessionId ? {} : { kind: DIRECTIVE_KIND }),
      OR: [{ toSession: null }, ...(sessionId ? [{ toSession: sessionId }] : [])],
      state: "delivered",
      visibleAt: { gt: now },
    },
    orderBy: { visibleAt: "asc" },
    select: { visibleAt: true },
  });
  return next?.visibleAt ?? null;
}

/** Parks until a directive is claimable (NOTIFY, or the next redelivery) or `waitMs` runs out. */
async function parkUntilClaimed(
  agentRowId: string,
  sessionId: string | null,
  max: number,
  waitMs: number,
  signal: AbortSignal | undefined,
): Promise<MailboxRow[]> {
  const waiters = terminalWaiters();
  await waiters.ready();
  const key = mailboxWakeKey(agentRowId);
  const deadline = Date.now() + waitMs;
  let rows: MailboxRow[] = [];
  while (rows.length === 0 && !signal?.aborted && !waiters.closing) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    // Registered before the read, so an author committing in between still wakes us.
    const waiting = waiters.wait(key, left, signal);
    try {
      const redelivery = await nextRedelivery(agentRowId, sessionId, clock.now());
      const untilRedelivery = redelivery ? redelivery.getTime() + 1 - clock.now().getTime() : Infinity;
      rows = await claimEntries(agentRowId, sessionId, max, clock.now());
      if (rows.length > 0) break;
      if (untilRedelivery < left) {
        const sooner = waiters.wait(key, Math.max(untilRedelivery, 0), signal);
        waiting.cancel();
        await sooner.promise;
      } else {
        await waiting.promise;
      }
    } finally {
      waiting.cancel();
    }
    // A caller that hung up is not a receipt: claim nothing on its behalf (§15.1 truthfulness).
    if (signal?.aborted) break;
    rows = await claimEntries(agentRowId, sessionId, max, clock.now());
  }
  return rows;
}

export async function drainMailbox(
  principal: AgentPrincipal,
  options: DrainOptions = {},
): Promise<{ messages: DrainedEntry[] }> {
  const max = Math.min(options.max ?? inboundLimits().maxBatch, inboundLimits().maxBatch);
  const requestedMs = Math.min(Math.max(options.waitSeconds ?? 0, 0), limits().maxWaitSeconds) * 1000;
  const waitMs = options.holdUntil
    ? Math.min(requestedMs, Math.max(0, options.holdUntil.getTime() - clock.now().getTime()))
    : requestedMs;
  await recordAgentSeenThrottled(principal.agentRowId); // §15.1: a drain is reachability traffic

  const sessionId = options.sessionId ?? null;
  let rows = await claimEntries(principal.agentRowId, sessionId, max, clock.now());
  if (rows.length === 0 && waitMs > 0) {
    // A parked drain holds a slot of the agent's parked-request cap (shared with long-polls),
    // released in the `finally` on every way out — a claim, timeout, abort, error or shutdown.
    const release = await acquireAgentSlot(principal);
    try {
      rows = await parkUntilClaimed(principal.agentRowId, sessionId, max, waitMs, options.signal);
    } finally {
      release();
    }
  }
  return { messages: await signedEntries(rows) };
}

/**
 * §9.7 / §9.8: every delivery — drained or streamed — signed now, with a fresh t and jti, by the
 * published ed25519 key, in its kind's context. A `response` entry's body is the §6 Response built
 * from the immutable Resolution (byte-for-byte the pull's); one whose message retention already
 * purged is skipped (the pull answers 410 for it too).
 */
export async function signedEntries(rows: MailboxRow[]): Promise<DrainedEntry[]> {
  if (rows.length === 0) return [];
  const key = await activeSigningKey();
  const signing = { key: { alg: "ed25519" as const, privateKey: key.privateKey }, now: clock.now() };
  const out: DrainedEntry[] = [];
  for (const row of rows) {
    const to = `agent:${row.agent.agentId}#${row.toSession}`;
    if (row.kind === ENTRY_KIND.message) {
      const message = JSON.parse(row.content) as MessageEntry & Record<string, unknown>;
      out.push({ message, signature: signMessageEntry({ ...signing, entry: message }).signature });
    } else if (row.kind === ENTRY_KIND.response) {
      const response = await responseOf(row);
      if (response) out.push({ response, signature: signResponseEntry({ ...signing, response, to }).signature });
    } else if (row.kind === ENTRY_KIND.receipt) {
      const receipt = JSON.parse(row.content) as Receipt;
      out.push({ receipt, signature: signReceiptEntry({ ...signing, receipt, to }).signature });
    } else {
      const directive = deliveredDirective(row);
      out.push({ directive, signature: signDirectiveDelivery({ ...signing, directive }).signature });
    }
  }
  return out;
}

/** The §6 Response a `response` entry (id = its resolution_id) carries, or null once purged. */
async function responseOf(row: MailboxRow): Promise<HubResponseBody | null> {
  const { in_reply_to } = JSON.parse(row.content) as { in_reply_to: string };
  const message = await loadMessage(in_reply_to);
  if (!message?.resolution || message.resolution.id !== row.id) return null;
  return hubResponse(message, message.resolution);
}

/** §8.7.1 an entry's ack key: a directive's, message's or receipt's `id`; a response's `resolution_id`. */
export function ackKeyOf(entry: DrainedEntry): string {
  if ("directive" in entry) return entry.directive.id;
  if ("message" in entry) return entry.message.id;
  if ("response" in entry) return entry.response.resolution_id;
  return entry.receipt.id;
}
