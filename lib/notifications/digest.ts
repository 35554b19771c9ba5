/**
 * Sending `notify` notifications (docs/notifications.md "Digests"): a person's rows due
 * together in one account are claimed together — one conditional UPDATE sets them `sending` with a
 * lease and a shared `batchId` — and sent as ONE mail listing each item; a notify the person takes
 * one mail each is the same thing with one row. The claim, each row's own attempt, the retries and
 * the recovery of a send interrupted mid-way are claims.ts's, as for a single send (send.ts).
 *
 * The mail lists each item's priority, title, agent and link; a `sensitive` item (§9.6) its title
 * and link only. Nothing of an item's body or context is in it: the link opens the item.
 */
import { clock } from "../clock";
import { db } from "../db";
import { env } from "../env";
import { log } from "../log";
import { envelopeOf } from "../messages/record";
import { seatFor } from "../principals/seats";
import { claim, EARLY_MS, failOrRetry, finish, recoverInterrupted } from "./claims";
import type { ComposedMail } from "./compose";
import { itemUrl } from "./text";
import { CHANNEL_EMAIL, type Channel } from "./kinds";
import { effectivePreferences } from "./preferences";
import { stillTellable } from "./recipients";
import { messageIdFor, sendMail } from "./smtp";
import { escapeHtml, oneLine } from "./text";

/** How many digests one sweep sends at most (the next sweep takes the rest). */
const MAX_GROUPS_PER_SWEEP = 200;

/**
 * The sweep's part: recover interrupted digest sends, then send every due digest — the due digest
 * rows grouped by (person, account), one mail per group.
 */
export async function sendDueDigests(): Promise<void> {
  const now = clock.now();
  await recoverInterrupted({ digest: true }, now);
  const due = await db().notification.findMany({
    where: { digest: true, status: "pending", nextAttemptAt: { lte: now } },
    select: { id: true, userId: true, message: { select: { accountId: true } } },
    orderBy: { nextAttemptAt: "asc" },
    take: 5000,
  });
  const groups = new Map<string, string[]>();
  for (const d of due) {
    const key = `${d.userId}|${d.message.accountId}`;
    groups.set(key, [...(groups.get(key) ?? []), d.id]);
  }
  for (const ids of [...groups.values()].slice(0, MAX_GROUPS_PER_SWEEP)) await sendBatch(ids);
}

/** The job's part for one notify item: each due one-mail-each row (and interrupted ones) of it. */
export async function sendNotifyRows(messageId: string): Promise<void> {
  const now = clock.now();
  await recoverInterrupted({ messageId, channel: CHANNEL_EMAIL, digest: false }, now);
  const due = await db().notification.findMany({
    where: {
      messageId,
      channel: CHANNEL_EMAIL,
      digest: false,
      status: "pending",
      nextAttemptAt: { lte: new Date(now.getTime() + EARLY_MS) },
    },
    select: { id: true },
  });
  for (const d of due) await sendBatch([d.id]);
}

type Claimed = Awaited<ReturnType<typeof loadBatch>>[number];

function loadBatch(batchId: string) {
  return db().notification.findMany({
    where: { batchId, status: "sending" },
    include: {
      user: { select: { email: true } },
      message: {
        select: {
          id: true,
          accountId: true,
          type: true,
          status: true,
          title: true,
          priority: true,
          sensitive: true,
          envelope: true,
          createdAt: true,
          account: { select: { slug: true } },
        },
      },
    },
    orderBy: { message: { createdAt: "asc" } },
  });
}

/**
 * Why a claimed row is no longer sent, or null: its item is no longer tellable, the person lost
 * their seat, or they turned this channel's notify off since the fan-out.
 */
async function dropReason(row: Claimed): Promise<string | null> {
  if (!stillTellable(row.message.type, row.message.status)) return "not_open";
  if (!(await seatFor(row.userId, row.message.accountId))) return "not_seated";
  const prefs = await effectivePreferences(row.userId, row.message.accountId);
  if (row.message.type === "notify" && !prefs.channels[row.channel as Channel]?.notify) return "opted_out";
  return null;
}

/** One attempt at one batch: the rows among `ids` (one person, one account) that are due. */
export async function sendBatch(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const batchId = await claim(ids, clock.now());
  if (!batchId) return;
  const claimed = await loadBatch(batchId);
  const keep: Claimed[] = [];
  for (const row of claimed) {
    const reason = await dropReason(row);
    if (reason) await finish([row], { status: "cancelled", result: null, errorClass: reason });
    else keep.push(row);
  }
  const first = keep[0];
  if (!first) return;
  const mail = composeDigest(keep, env().publicUrl);
  const result = await sendMail(first.user.email, mail, messageIdFor(batchId));
  const meta = { batch_id: batchId, items: keep.length, channel: first.channel };
  if (result.ok) {
    log.info("notification digest sent", meta);
    return finish(keep, { status: "sent", result });
  }
  log.warn("notification digest attempt failed", {
    ...meta,
    error_class: result.errorClass,
    response_code: result.responseCode,
  });
  await failOrRetry(keep, result);
}

/** One line per item: `[priority] title — agent`, or the title alone for a sensitive one (§9.6). */
function itemLine(row: Claimed): string {
  if (row.message.sensitive) return oneLine(row.message.title);
  return oneLine(`[${row.message.priority}] ${row.message.title} — ${envelopeOf(row.message).agent.id}`);
}

/** The mail of a batch: one item reads like any notification; several are a digest. */
export function composeDigest(rows: Claimed[], publicUrl: string): ComposedMail {
  const slug = rows[0]?.message.account.slug ?? "";
  const one = rows.length === 1 ? rows[0] : undefined;
  const subject = one
    ? oneLine(`[${one.message.priority}] ${one.message.title}`)
    : oneLine(`${rows.length} notifications in ${slug}`);
  const intro = one ? `A notification in ${slug}:` : `${rows.length} notifications in ${slug} since your last digest:`;
  const items = rows.map((r) => ({ line: itemLine(r), link: itemUrl(publicUrl, r.message.id) }));
  const settings = `${publicUrl}/settings/notifications`;
  const text = [intro, "", ...items.flatMap((i) => [`- ${i.line}`, `  ${i.link}`])].join("\n");
  const html = [
    "<!doctype html><html><body>",
    `<p>${escapeHtml(intro)}</p>`,
    "<ul>",
    ...items.map((i) => `<li>${escapeHtml(i.line)} — <a href="${escapeHtml(i.link)}">open it in the Hub</a></li>`),
    "</ul>",
    `<p><a href="${escapeHtml(settings)}">Change how you are told</a></p>`,
    "</body></html>",
  ].join("\n");
  return { subject, text: `${text}\n\nChange how you are told: ${settings}\n`, html };
}
