/**
 * The claim every notification send goes through (docs/notifications.md "Delivery, retries
 * and failures") — one definition for send.ts (one row a mail) and digest.ts (a batch of rows a
 * mail; a single row is a batch of one):
 * - `claim`: the due pending rows among some ids are moved `pending → sending` by ONE conditional
 *   UPDATE, with a lease, `attempts + 1` and a shared `batchId`; a `sent` row is never claimed, so
 *   two workers never send the same row;
 * - `finish` / `failOrRetry`: only the claim's holder (status `sending`, its `batchId`, its
 *   `attempts`) records a row's outcome, with its attempt row, in one transaction;
 * - `recoverInterrupted`: a row left `sending` past its lease was interrupted (the worker died
 *   mid-send): it is logged as such and made due again, and the resend carries the same Message-ID
 *   — at-least-once across the window between the SMTP server's acceptance and our UPDATE
 *   (docs/decisions/notifications.md "Notifications").
 */
import { clock } from "../clock";
import { db } from "../db";
import { env, notifyRetryPolicy } from "../env";
import type { Prisma } from "../generated/prisma/client";
import { log } from "../log";
import { mintId } from "@ma2h/protocol/ids";
import { enqueueNotify } from "../queue/enqueue";
import { type RowOutcome, recordOutcomes } from "./claims.sql";
import type { SendResult } from "./send-result";

/**
 * How long a claim holds: longer than any one SMTP exchange can take — every step of it is bounded
 * by `MA2H_SMTP_TIMEOUT_MS` (smtp.ts) — so a live sender never loses its claim mid-send.
 */
export function leaseMs(): number {
  return 2 * env().MA2H_SMTP_TIMEOUT_MS + 1000;
}

/** Slack for a due time: a delayed job may wake a little early for it, and still finds it due. */
export const EARLY_MS = 250;

/** What the claim machinery reads of a claimed row (every loaded notification row has it). */
export type ClaimedRow = {
  id: string;
  messageId: string;
  userId: string;
  channel: string;
  digest: boolean;
  batchId: string | null;
  attempts: number;
};

/** One attempt's log row: ids, outcome, error class and reply code — no address, token or content. */
function attemptRow(
  row: Pick<ClaimedRow, "id" | "attempts" | "channel" | "userId">,
  outcome: string,
  errorClass: string | null,
  responseCode: number | null,
  at: Date,
): Prisma.NotificationAttemptUncheckedCreateInput {
  return {
    notificationId: row.id,
    attempt: row.attempts,
    channel: row.channel,
    userId: row.userId,
    outcome,
    errorClass,
    responseCode,
    at,
  };
}

/** Rows (among `where`) left `sending` past their lease: log the interruption and make them due again. */
export async function recoverInterrupted(where: Prisma.NotificationWhereInput, now: Date): Promise<void> {
  const stale = await db().notification.findMany({
    where: { ...where, status: "sending", leaseUntil: { lt: now } },
    select: { id: true, attempts: true, channel: true, userId: true, leaseUntil: true },
    take: 1000,
  });
  for (const row of stale) {
    const recovered = await db().$transaction(async (tx) => {
      // Guarded by the lease seen: a second recoverer (or a fresh claim) since then changes nothing.
      const res = await tx.notification.updateMany({
        where: { id: row.id, status: "sending", leaseUntil: row.leaseUntil },
        data: {
          status: "pending",
          leaseUntil: null,
          batchId: null,
          nextAttemptAt: now,
          lastErrorClass: "interrupted",
          updatedAt: now,
        },
      });
      if (res.count !== 1) return false;
      await tx.notificationAttempt.create({ data: attemptRow(row, "interrupted", "interrupted", null, now) });
      return true;
    });
    if (recovered)
      log.warn("notification send was interrupted; sending again", { notification_id: row.id, attempt: row.attempts });
  }
}

/**
 * Claims the due pending rows among `ids` for one attempt, with one conditional UPDATE; returns the
 * batch id they now share, or null when none was due, pending and free.
 */
export async function claim(ids: string[], now: Date): Promise<string | null> {
  const batchId = mintId("notification");
  const res = await db().notification.updateMany({
    where: { id: { in: ids }, status: "pending", nextAttemptAt: { lte: new Date(now.getTime() + EARLY_MS) } },
    data: {
      status: "sending",
      batchId,
      leaseUntil: new Date(now.getTime() + leaseMs()),
      attempts: { increment: 1 },
      updatedAt: now,
    },
  });
  return res.count > 0 ? batchId : null;
}

export type Finish =
  | { status: "sent"; result: SendResult }
  | { status: "pending"; result: SendResult; nextAt: Date }
  | { status: "failed" | "cancelled"; result: SendResult | null; errorClass: string };

/** The error class a row keeps for an outcome. */
function errorClassOf(f: Finish): string | null {
  if (f.status === "sent") return null;
  if (f.result && !f.result.ok) return f.result.errorClass;
  return "errorClass" in f ? f.errorClass : null;
}

/** A row's recorded outcome, from its claim and what happened. */
function outcomeOf(row: ClaimedRow, f: Finish): RowOutcome {
  return {
    id: row.id,
    batchId: row.batchId,
    attempts: row.attempts,
    status: f.status,
    errorClass: errorClassOf(f),
    responseCode: f.result?.responseCode ?? null,
    nextAt: f.status === "pending" ? f.nextAt : null,
  };
}

/**
 * Records each row's attempt and new state with one statement (claims.sql.ts); only the rows'
 * claim may: a row no longer `sending` under its batch and attempt number is left as it is.
 */
export async function finish(rows: ClaimedRow[], f: Finish): Promise<void> {
  await finishEach(rows.map((row) => ({ row, finish: f })));
}

/** Several rows' outcomes, each its own, recorded together (one statement). */
export async function finishEach(entries: { row: ClaimedRow; finish: Finish }[]): Promise<void> {
  await recordOutcomes(
    entries.map((e) => outcomeOf(e.row, e.finish)),
    clock.now(),
  );
}

/**
 * The failure policy, per row: a transient failure with attempts left makes the row due again after
 * `MA2H_NOTIFY_RETRY_BASE_MS` × 2^(attempt − 1) — a row sent on its own with a delayed wake-up of
 * its item's job (a digest row waits for the sweep) — else the row is `failed`.
 */
export function failureFinish(row: ClaimedRow, result: Extract<SendResult, { ok: false }>): Finish {
  const policy = notifyRetryPolicy();
  if (result.transient && row.attempts < policy.maxAttempts)
    return {
      status: "pending",
      result,
      nextAt: new Date(clock.now().getTime() + policy.baseMs * 2 ** (row.attempts - 1)),
    };
  return { status: "failed", result, errorClass: result.errorClass };
}

/** After the outcomes are recorded: a delayed wake-up of the item's job for each single row due again. */
export async function wakeForRetries(entries: { row: ClaimedRow; finish: Finish }[]): Promise<void> {
  for (const { row, finish: f } of entries)
    if (f.status === "pending" && !row.digest)
      await enqueueNotify(row.messageId, `retry-${row.id}-${row.attempts + 1}`, f.nextAt);
}

/** `failureFinish` for each row, recorded, and the retries' wake-ups. */
export async function failOrRetry(rows: ClaimedRow[], result: Extract<SendResult, { ok: false }>): Promise<void> {
  const entries = rows.map((row) => ({ row, finish: failureFinish(row, result) }));
  await finishEach(entries);
  await wakeForRetries(entries);
}
