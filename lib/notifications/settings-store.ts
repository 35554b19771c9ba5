/**
 * Writing an account's notification settings (`/admin/<account>/notifications`): owners and
 * admins set the defaults of its people's preferences; only owners turn "answer from an email
 * without signing in" on or off (it decides whether a mail link alone may answer for a person).
 * Each verb re-checks the role it needs (the page's gate is not trusted alone), validates, changes
 * nothing on bad input, and writes an audit row with ids and field names only. The reminder delays
 * of the same row are written by their own module.
 */
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db } from "../db";
import { HubError } from "@ma2h/protocol/errors";
import { ADMIN_ROLES } from "../principals/seats";
import type { Role } from "../principals/types";
import { accountDefaults, changedFields, parsePreferences } from "./preferences";
import { accountNotificationSettings } from "./settings";

/** Who acts: the seat's account, role and attested actor (`human:<handle>`). */
export interface SettingsActor {
  accountId: string;
  role: Role;
  actor: string;
}

/** Owners and admins: the account's default preferences, stored whole. */
export async function saveAccountDefaults(who: SettingsActor, input: unknown): Promise<{ changed: string[] }> {
  if (!ADMIN_ROLES.includes(who.role))
    throw new HubError("not_authorized", "only an owner or admin may change the account's notification defaults");
  const defaults = parsePreferences(input);
  const changed = changedFields(await accountDefaults(who.accountId), defaults);
  const now = clock.now();
  await db().$transaction(async (tx) => {
    await tx.accountNotificationSettings.upsert({
      where: { accountId: who.accountId },
      create: { accountId: who.accountId, defaults, updatedAt: now },
      update: { defaults, updatedAt: now },
    });
    await writeAudit(tx, {
      accountId: who.accountId,
      actor: who.actor,
      event: AUDIT_EVENT.notificationDefaultsChanged,
      detail: { changed },
      at: now,
    });
  });
  return { changed };
}

/** Owners only: whether a person may answer from an email link without a Hub session. */
export async function setEmailAnswerWithoutSignIn(who: SettingsActor, enabled: unknown): Promise<{ changed: boolean }> {
  if (who.role !== "owner")
    throw new HubError("not_authorized", "only an owner may change answering from an email without signing in");
  if (typeof enabled !== "boolean") throw new HubError("validation_error", "enabled: must be true or false");
  const current = await accountNotificationSettings(who.accountId);
  if (current.emailAnswerWithoutSignIn === enabled) return { changed: false };
  const now = clock.now();
  await db().$transaction(async (tx) => {
    await tx.accountNotificationSettings.upsert({
      where: { accountId: who.accountId },
      create: { accountId: who.accountId, emailAnswerWithoutSignIn: enabled, updatedAt: now },
      update: { emailAnswerWithoutSignIn: enabled, updatedAt: now },
    });
    await writeAudit(tx, {
      accountId: who.accountId,
      actor: who.actor,
      event: AUDIT_EVENT.notificationEmailAnswerChanged,
      detail: { enabled },
      at: now,
    });
  });
  return { changed: true };
}

/**
 * Owners only: whether the email link alone also answers high/urgent asks and asks with an
 * explicit `allowed_resolvers` (off by default: those need a Hub session). Audited like the switch
 * above, naming which one changed.
 */
export async function setEmailAnswerSensitiveWithoutSignIn(
  who: SettingsActor,
  enabled: unknown,
): Promise<{ changed: boolean }> {
  if (who.role !== "owner")
    throw new HubError(
      "not_authorized",
      "only an owner may change answering high-priority and restricted asks from an email without signing in",
    );
  if (typeof enabled !== "boolean") throw new HubError("validation_error", "enabled: must be true or false");
  const current = await accountNotificationSettings(who.accountId);
  if (current.emailAnswerSensitiveWithoutSignIn === enabled) return { changed: false };
  const now = clock.now();
  await db().$transaction(async (tx) => {
    await tx.accountNotificationSettings.upsert({
      where: { accountId: who.accountId },
      create: { accountId: who.accountId, emailAnswerSensitiveWithoutSignIn: enabled, updatedAt: now },
      update: { emailAnswerSensitiveWithoutSignIn: enabled, updatedAt: now },
    });
    await writeAudit(tx, {
      accountId: who.accountId,
      actor: who.actor,
      event: AUDIT_EVENT.notificationEmailAnswerChanged,
      detail: { sensitive: true, enabled },
      at: now,
    });
  });
  return { changed: true };
}
