/**
 * The one-click answer links of a notification mail (docs/notifications.md "Answering from the
 * mail"). A link is `<MA2H_PUBLIC_URL>/e/<token>`: 32 random bytes, base64url — unguessable, and the
 * only thing the link carries. The Hub stores only the token's SHA-256 (the same hash as every other
 * bearer credential, lib/secrets.ts), bound to (notification, item, person, option value), expiring
 * at the earlier of the item's `expires_at` and 7 days, and single-use: spent in the transaction
 * that resolves the item (lib/notifications/email-answer.ts). A browser-push notification's action
 * buttons are tokens of the same kind in the same table (docs/notifications.md "Answering from the
 * notification"), bound to the push row and living at most a day.
 */
import { randomBytes } from "node:crypto";
import { processWide } from "../process-wide";
import { db, type Tx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { effectiveOptions } from "@ma2h/protocol/ask-contract";
import type { Message, ResponseOption } from "@ma2h/protocol/message";
import { hashCredential } from "../secrets";

export const ANSWER_TOKEN_BYTES = 32;
export const ANSWER_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * A notification action's token lives no longer than the push that carries it may wait at the push
 * service (web-push/payload.ts MAX_TTL_SECONDS): one day.
 */
export const PUSH_ACTION_TTL_MS = 24 * 60 * 60 * 1000;
/** Chromium shows at most two notification actions: an ask with more options gets none. */
export const MAX_PUSH_ACTIONS = 2;
/** 32 bytes in base64url, unpadded: exactly 43 characters of that alphabet. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface AnswerLink {
  value: string;
  label: string;
  url: string;
}

/** The page of one answer link (GET shows it, POST from it decides). */
export function answerUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/e/${token}`;
}

/**
 * The options a mail may carry one link each for (§5.2): a `select` or `confirm` ask's, confirm's
 * synthesized approve/deny included. None for an `input` ask (it needs a filled-in answer) or a task
 * (checklist and completion are decided in the Hub), and none for a `sensitive` item (§9.6): its mail
 * carries the title and the item's link only — no option label leaves the Hub, and a forwarded or
 * leaked mail cannot decide it without a sign-in (docs/decisions/notifications.md).
 */
export function linkableOptions(envelope: Message, sensitive: boolean): ResponseOption[] {
  if (sensitive || envelope.type !== "ask" || envelope.request.mode === "input") return [];
  return effectiveOptions(envelope.request);
}

/** When a link minted now expires: the earlier of the item's `expires_at` and 7 days (`ttlMs`). */
export function linkExpiry(itemExpiresAt: Date | null, now: Date, ttlMs = ANSWER_LINK_TTL_MS): Date {
  const limit = new Date(now.getTime() + ttlMs);
  return itemExpiresAt && itemExpiresAt < limit ? itemExpiresAt : limit;
}

/**
 * The options a browser-push notification carries one action button each for: the mail's
 * (`linkableOptions`), and only when there are at most two of them — a `confirm` ask, or a `select`
 * with two options or one. Any other item's notification only opens the item.
 */
export function actionableOptions(envelope: Message, sensitive: boolean): ResponseOption[] {
  const options = linkableOptions(envelope, sensitive);
  return options.length <= MAX_PUSH_ACTIONS ? options : [];
}

/** One notification action: the option and the raw token that answers with it. */
export interface PushAction {
  value: string;
  label: string;
  token: string;
}

async function mint(
  notification: { id: string; messageId: string; userId: string },
  options: readonly ResponseOption[],
  expiresAt: Date,
  now: Date,
): Promise<{ option: ResponseOption; token: string }[]> {
  if (options.length === 0 || expiresAt <= now) return [];
  const minted = options.map((o) => ({ option: o, token: randomBytes(ANSWER_TOKEN_BYTES).toString("base64url") }));
  await store(
    minted.map((m) => ({
      tokenHash: hashCredential(m.token),
      notificationId: notification.id,
      messageId: notification.messageId,
      userId: notification.userId,
      option: m.option.value,
      expiresAt,
      createdAt: now,
    })),
  );
  return minted;
}

type TokenRow = Prisma.EmailAnswerTokenCreateManyInput;
type Batch = { rows: TokenRow[]; stored: Promise<void> };
/** The rows minted in this turn of the event loop, stored together, and what each minter awaits. */
const minting = () => processWide("ma2h.answer-token-batch", () => ({ pending: null as Batch | null }));

/**
 * Stores the rows: the tokens minted by the sends one claim started together (lib/notifications/
 * send.ts runs a chunk of rows at once) go in one INSERT, flushed once the turn's minting is done.
 * Each minter's promise settles with that INSERT — a link is only used after its row is stored.
 */
function store(rows: TokenRow[]): Promise<void> {
  const state = minting();
  if (!state.pending) {
    const batch: Batch = { rows: [], stored: Promise.resolve() };
    batch.stored = new Promise<void>((resolve, reject) =>
      setImmediate(() => {
        if (state.pending === batch) state.pending = null;
        db()
          .emailAnswerToken.createMany({ data: batch.rows })
          .then(() => resolve(), reject);
      }),
    );
    state.pending = batch;
  }
  state.pending.rows.push(...rows);
  return state.pending.stored;
}

/**
 * Mints one link per linkable option for one notification row and stores their hashes; the raw
 * tokens exist only in the returned URLs (and so only in the mail). Each send attempt mints its own:
 * a resend after an interrupted attempt cannot recover the first attempt's tokens, and those stay
 * valid in case that mail did arrive (whichever link is used first decides; the rest then find the
 * item closed).
 */
export async function mintAnswerLinks(
  notification: { id: string; messageId: string; userId: string },
  item: { expiresAt: Date | null; sensitive: boolean },
  envelope: Message,
  publicUrl: string,
  now: Date,
): Promise<AnswerLink[]> {
  const minted = await mint(
    notification,
    linkableOptions(envelope, item.sensitive),
    linkExpiry(item.expiresAt, now),
    now,
  );
  return minted.map((m) => ({ value: m.option.value, label: m.option.label, url: answerUrl(publicUrl, m.token) }));
}

/**
 * Mints the action tokens of one browser-push row (the same table and rules as the mail's links:
 * bound to the row, item, person and option, single-use), living at most a day
 * (`PUSH_ACTION_TTL_MS`). The raw tokens travel only in the push payload, encrypted to the person's
 * own devices (RFC 8291); every device of the person gets the same ones — whichever is used first
 * answers.
 */
export async function mintPushActions(
  notification: { id: string; messageId: string; userId: string },
  item: { expiresAt: Date | null; sensitive: boolean },
  envelope: Message,
  now: Date,
): Promise<PushAction[]> {
  const options = actionableOptions(envelope, item.sensitive);
  const minted = await mint(notification, options, linkExpiry(item.expiresAt, now, PUSH_ACTION_TTL_MS), now);
  return minted.map((m) => ({ value: m.option.value, label: m.option.label, token: m.token }));
}

/** A stored link by its raw token; null for anything that is not one (malformed, unknown). */
export async function findAnswerToken(token: string) {
  if (!TOKEN_SHAPE.test(token)) return null;
  return db().emailAnswerToken.findUnique({
    where: { tokenHash: hashCredential(token) },
    include: { notification: { select: { channel: true } } },
  });
}

/** Spends a link inside the resolving transaction; false when it was spent or expired meanwhile. */
export async function spendAnswerToken(tx: Tx, tokenHash: string, now: Date): Promise<boolean> {
  const res = await tx.emailAnswerToken.updateMany({
    where: { tokenHash, usedAt: null, expiresAt: { gte: now } },
    data: { usedAt: now },
  });
  return res.count === 1;
}
