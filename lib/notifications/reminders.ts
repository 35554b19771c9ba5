/**
 * Reminders and escalation (docs/notifications.md "Reminders and escalation"): per account and
 * priority, one reminder to the item's resolvers after N minutes unresolved and one escalation to
 * the account's owners/admins after M. Durable like expiry (§7): they are `notifications` rows made
 * at fan-out time, due at the item's created time + N (or + M) — no timer holds them. The job's
 * delayed wake-up and the notification sweep send them when due (fanout.ts); the terminal
 * transition cancels what is still pending (lib/messages/lifecycle.ts).
 */
import { z } from "zod";
import { AUDIT_EVENT } from "../audit/events";
import { writeAudit } from "../audit/write";
import { clock } from "../clock";
import { db } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { log } from "../log";
import { PRIORITIES, type Priority } from "../messages/listing";
import { HubError } from "@ma2h/protocol/errors";
import { KIND_ESCALATION, KIND_REMINDER } from "./kinds";
import { type PlanningContext, rowsFor } from "./planned-rows";
import type { PlanItem } from "./preferences";
import { accountNotificationSettings } from "./settings";

/** Minutes after the item's creation; null = never. */
export interface FollowUpDelays {
  remindMinutes: number | null;
  escalateMinutes: number | null;
}
export type ReminderPolicy = Record<Priority, FollowUpDelays>;

/** The built-in reminder delays; each escalation defaults to twice its reminder delay. */
export const DEFAULT_REMIND_MINUTES: Record<Priority, number | null> = {
  urgent: 30,
  high: 30,
  normal: 240,
  low: null,
};

/** 30 days: a delay beyond any item's useful life is a typo, not a policy. */
export const MAX_DELAY_MINUTES = 43_200;

/**
 * Fractional minutes are allowed (0.05 = 3 s): one unit everywhere, and tests and the SIGKILL test
 * use seconds-long delays through the same setting an operator uses, with no test-only knob.
 */
const minutes = z
  .number()
  .positive("must be more than 0 minutes")
  .max(MAX_DELAY_MINUTES, `must be at most ${MAX_DELAY_MINUTES} minutes (30 days)`)
  .nullable();

const delaysSchema = z.strictObject({ remindMinutes: minutes.optional(), escalateMinutes: minutes.optional() });

/**
 * What `account_notification_settings.reminders` holds: per priority, the delays that differ from
 * the built-in ones. Absent = the default; null = off. E.g. `{"normal": {"remindMinutes": 60}}`.
 */
export const reminderOverridesSchema = z.strictObject({
  urgent: delaysSchema.optional(),
  high: delaysSchema.optional(),
  normal: delaysSchema.optional(),
  low: delaysSchema.optional(),
});
export type ReminderOverrides = z.infer<typeof reminderOverridesSchema>;

/** Overrides over the defaults; an unset escalation is twice the effective reminder delay. */
export function effectivePolicy(overrides: ReminderOverrides): ReminderPolicy {
  const out = {} as ReminderPolicy;
  for (const p of PRIORITIES) {
    const o = overrides[p] ?? {};
    const remind = o.remindMinutes === undefined ? DEFAULT_REMIND_MINUTES[p] : o.remindMinutes;
    const escalate = o.escalateMinutes === undefined ? (remind === null ? null : 2 * remind) : o.escalateMinutes;
    out[p] = { remindMinutes: remind, escalateMinutes: escalate };
  }
  return out;
}

/** The account's stored overrides; a row edited by hand into something invalid counts as none. */
export async function reminderOverrides(accountId: string): Promise<ReminderOverrides> {
  return readReminderOverrides((await accountNotificationSettings(accountId)).reminders, accountId);
}

/** The overrides a settings row stores (`reminders`), read leniently: invalid counts as none. */
export function readReminderOverrides(stored: unknown, accountId: string): ReminderOverrides {
  const parsed = reminderOverridesSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  log.warn("account reminder settings are invalid; the defaults apply", { account_id: accountId });
  return {};
}

export async function reminderPolicy(accountId: string): Promise<ReminderPolicy> {
  return effectivePolicy(await reminderOverrides(accountId));
}

/** Refuses overrides whose escalation would come before the reminder (the order of the two mails). */
export function policyProblem(overrides: ReminderOverrides): string | null {
  const policy = effectivePolicy(overrides);
  for (const p of PRIORITIES) {
    const { remindMinutes: r, escalateMinutes: e } = policy[p];
    if (r !== null && e !== null && e < r)
      return `${p}: the escalation (${e} min) cannot come before the reminder (${r} min)`;
  }
  return null;
}

/** The form's field names of one priority's two delays. */
export const delayField = (p: Priority, which: "remind" | "escalate") => `${p}_${which}`;

/**
 * The overrides a form submitted: each field blank (the built-in default), `off` (never), or a
 * number of minutes (decimals allowed). Every bad field is named in one `invalid_field` error, and
 * an escalation before its reminder is refused too — nothing is written then.
 */
export function overridesFromForm(get: (name: string) => string): ReminderOverrides {
  const out: ReminderOverrides = {};
  const problems: string[] = [];
  for (const p of PRIORITIES) {
    const delays: z.infer<typeof delaysSchema> = {};
    for (const which of ["remind", "escalate"] as const) {
      const raw = get(delayField(p, which)).trim().toLowerCase();
      if (raw === "") continue;
      const key = which === "remind" ? "remindMinutes" : "escalateMinutes";
      if (raw === "off") {
        delays[key] = null;
        continue;
      }
      const n = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
      const parsed = minutes.safeParse(n);
      if (Number.isNaN(n)) problems.push(`${p} ${which}: "${raw.slice(0, 20)}" is not a number of minutes or "off"`);
      else if (!parsed.success) problems.push(`${p} ${which}: ${parsed.error.issues[0]?.message}`);
      else delays[key] = parsed.data;
    }
    if (Object.keys(delays).length > 0) out[p] = delays;
  }
  const order = problems.length === 0 ? policyProblem(out) : null;
  if (order) problems.push(order);
  if (problems.length > 0) throw new HubError("invalid_field", `Nothing was changed. ${problems.join("; ")}.`);
  return out;
}

/**
 * Writes the account's overrides (owners/admins — the caller checks the seat) and audits the
 * change; only the `reminders` part of the settings row is touched.
 */
export async function setReminderOverrides(
  accountId: string,
  overrides: ReminderOverrides,
  actor: string,
): Promise<ReminderPolicy> {
  const checked = reminderOverridesSchema.parse(overrides);
  const now = clock.now();
  await db().$transaction(async (tx) => {
    await tx.accountNotificationSettings.upsert({
      where: { accountId },
      create: { accountId, reminders: checked, updatedAt: now },
      update: { reminders: checked, updatedAt: now },
    });
    await writeAudit(tx, {
      accountId,
      actor,
      event: AUDIT_EVENT.notificationRemindersChanged,
      detail: { reminders: checked },
      at: now,
    });
  });
  return effectivePolicy(checked);
}

const addMinutes = (at: Date, m: number) => new Date(at.getTime() + Math.round(m * 60_000));

/**
 * Planned by `fanOut` before its transaction, which writes them: the item's reminder rows (each
 * resolving human, at created + N) and escalation rows (each owner/admin, at created + M), as the
 * person's delivery plan allows (quiet hours may move them later, or a preference drop them). Under
 * the unique key (message, person, channel, kind), so a repeated fan-out makes each row once. Only
 * for an open ask/task, and only on channels that reach the person (planned-rows.ts). The policy in
 * force at fan-out time applies; a later change of it does not move rows already made. No reads:
 * the fan-out read the delays (`followUpDelays`), the people and the planning context once.
 */
export function followUpRows(
  ctx: PlanningContext,
  m: { id: string; type: string; status: string; priority: string; createdAt: Date },
  delays: FollowUpDelays | null,
  people: { resolvers: readonly string[]; admins: readonly string[] },
  now: Date,
): Prisma.NotificationCreateManyInput[] {
  if (!delays || m.status !== "open" || (m.type !== "ask" && m.type !== "task")) return [];
  const item: PlanItem = { type: m.type, priority: m.priority as Priority };
  const rows: Prisma.NotificationCreateManyInput[] = [];
  if (delays.remindMinutes !== null)
    rows.push(
      ...rowsFor(ctx, m.id, people.resolvers, KIND_REMINDER, item, addMinutes(m.createdAt, delays.remindMinutes), now),
    );
  if (delays.escalateMinutes !== null)
    rows.push(
      ...rowsFor(ctx, m.id, people.admins, KIND_ESCALATION, item, addMinutes(m.createdAt, delays.escalateMinutes), now),
    );
  return rows;
}

/** The follow-up delays of an open ask/task of this priority, from the account's stored overrides; null for none. */
export function followUpDelays(
  m: { accountId: string; type: string; status: string; priority: string },
  storedReminders: unknown,
): FollowUpDelays | null {
  if (m.status !== "open" || (m.type !== "ask" && m.type !== "task")) return null;
  return effectivePolicy(readReminderOverrides(storedReminders, m.accountId))[m.priority as Priority] ?? null;
}
