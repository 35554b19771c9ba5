/**
 * Writing a person's own notification preferences in one account (`/settings/notifications`).
 * The person is the caller's, never one the form names; the seat proves they belong to the account.
 * A save stores the whole set (so a later change of the account's defaults no longer moves them);
 * a reset deletes it, and they follow the account's defaults again. Both are audited with field
 * names only — no time zone or other value a person chose — in the person's own stream, naming the
 * account by slug: a person's choices are theirs, not the account's to read.
 */
import { AUDIT_EVENT } from "../audit/events";
import { personActor, writePersonAudit } from "../audit/write";
import { clock } from "../clock";
import { db, type Tx } from "../db";
import type { Seat } from "../principals/types";
import { changedFields, effectivePreferences, type Preferences, parsePreferences } from "./preferences";

/** The account's slug, for the person's stream: they read it by name, as the settings page shows it. */
async function slugOf(tx: Tx, accountId: string): Promise<string> {
  return (await tx.account.findUniqueOrThrow({ where: { id: accountId }, select: { slug: true } })).slug;
}

/** Validates and stores the person's preferences; bad input throws and changes nothing. */
export async function savePreferences(userId: string, seat: Seat, input: unknown): Promise<{ changed: string[] }> {
  const prefs: Preferences = parsePreferences(input);
  const before = await effectivePreferences(userId, seat.accountId);
  const changed = changedFields(before, prefs);
  const now = clock.now();
  await db().$transaction(async (tx) => {
    await tx.notificationPreference.upsert({
      where: { userId_accountId: { userId, accountId: seat.accountId } },
      create: { userId, accountId: seat.accountId, prefs, updatedAt: now },
      update: { prefs, updatedAt: now },
    });
    await writePersonAudit(tx, {
      userId,
      actor: personActor(userId),
      event: AUDIT_EVENT.notificationPreferencesChanged,
      detail: { account: await slugOf(tx, seat.accountId), changed },
      at: now,
    });
  });
  return { changed };
}

/** Drops the person's own choices in the account: they follow its defaults again. */
export async function resetPreferences(userId: string, seat: Seat): Promise<{ reset: boolean }> {
  const now = clock.now();
  return db().$transaction(async (tx) => {
    const { count } = await tx.notificationPreference.deleteMany({ where: { userId, accountId: seat.accountId } });
    if (count === 0) return { reset: false };
    await writePersonAudit(tx, {
      userId,
      actor: personActor(userId),
      event: AUDIT_EVENT.notificationPreferencesReset,
      detail: { account: await slugOf(tx, seat.accountId) },
      at: now,
    });
    return { reset: true };
  });
}

/** Whether the person has choices of their own in the account (the page says which they follow). */
export async function hasOwnPreferences(userId: string, accountId: string): Promise<boolean> {
  return (await db().notificationPreference.count({ where: { userId, accountId } })) > 0;
}
