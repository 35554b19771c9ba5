/**
 * Reminders and escalation (docs/notifications.md "Reminders and escalation") in this
 * process, on a pinned Hub clock: the lib verbs submit, fan out and send (`processNotifications`)
 * while a real SMTP server from `smtp-server` receives and `mailparser` reads. Each human's address
 * is `<handle>@<slug>.test`. The worker pair, a SIGKILL and the item page are in
 * test/notification-reminders-durable.test.ts.
 */
// covers: lib/notifications/reminders.ts, lib/notifications/planned-rows.ts, app/admin/[account]/notifications/reminder-delays.tsx
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ReminderDelays } from "../app/admin/[account]/notifications/reminder-delays";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { resetEnvCache } from "../lib/env";
import { cancelMessage } from "../lib/messages/cancel";
import { expireMessage } from "../lib/messages/expiry";
import { resolveMessage } from "../lib/messages/resolve";
import { submitMessage } from "../lib/messages/submit";
import { processNotifications } from "../lib/notifications/fanout";
import {
  effectivePolicy,
  overridesFromForm,
  reminderPolicy,
  setReminderOverrides,
} from "../lib/notifications/reminders";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
import { HubError } from "@ma2h/protocol/errors";
import { useHubFixture } from "./support/hub-fixture";
import { type MailCapture, startMailCapture } from "./support/mail-capture";
import { envelope } from "./support/provision";

let capture: MailCapture;
/** Each accepted mail: recipient and subject. */
const received = () => capture.received.map((r) => ({ to: r.to, subject: r.mail.subject ?? "" }));

async function startSmtp(): Promise<void> {
  capture = await startMailCapture();
  process.env.SMTP_URL = capture.url;
  process.env.MA2H_MAIL_FROM = "MA2H Hub <hub@ma2h.test>";
  resetEnvCache();
}

const A = "bot/acme";
const Q = "bot/quick";
const hub = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: [A],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "adam", role: "admin" },
        { handle: "mia", role: "member" },
        { handle: "vic", role: "viewer" },
      ],
    },
    quick: {
      agents: [Q],
      humans: [
        { handle: "qo", role: "owner" },
        { handle: "qa", role: "admin" },
        { handle: "qm", role: "member" },
      ],
    },
  },
  setup: startSmtp,
});

const T0 = new Date("2031-05-01T10:00:00.000Z");
const clock = fixedClock(T0);
const MIN = 60_000;
const agents: Record<string, AgentPrincipal> = {};

beforeAll(async () => {
  agents.acme = requireAgent(
    await authenticate(new Headers({ authorization: `Bearer ${hub.account("acme").keys[A]}` })),
  );
  agents.quick = requireAgent(
    await authenticate(new Headers({ authorization: `Bearer ${hub.account("quick").keys[Q]}` })),
  );
});

beforeEach(() => {
  clock.set(T0);
  setClock(clock);
});

afterAll(async () => {
  setClock(null);
  delete process.env.SMTP_URL;
  delete process.env.MA2H_MAIL_FROM;
  resetEnvCache();
  await capture.close();
});

let n = 0;
/** Submits at T0 and runs the job once then (the new-item mails go out). */
async function submit(slug: "acme" | "quick", over: Record<string, unknown> = {}, type: "ask" | "task" = "ask") {
  clock.set(T0);
  const title = `item ${slug} ${++n}`;
  const agentId = slug === "acme" ? A : Q;
  const { ack } = await submitMessage(agents[slug] as AgentPrincipal, envelope(type, agentId, { title, ...over }));
  await processNotifications(ack.id);
  return { id: ack.id, title };
}

/** Moves the pinned clock to T0 + `ms` and runs the item's job, as its delayed wake-up would. */
async function runAt(id: string, ms: number): Promise<void> {
  clock.set(new Date(T0.getTime() + ms));
  await processNotifications(id);
}

const mails = (title: string, prefix: string) =>
  received()
    .filter((r) => r.subject.endsWith(` ${title}`) && r.subject.startsWith(prefix))
    .map((r) => r.to)
    .sort();
const reminders = (title: string) => mails(title, "Reminder: ");
const escalations = (title: string) => mails(title, "Escalation: ");
const firsts = (title: string) => mails(title, "[");

async function rows(id: string, kind?: string) {
  return db().notification.findMany({
    where: { messageId: id, ...(kind ? { kind } : {}) },
    include: { user: { select: { email: true } } },
    // A total order: one person's rows (escalation, new, reminder) would otherwise tie.
    orderBy: [{ user: { email: "asc" } }, { kind: "asc" }],
  });
}
const userId = async (email: string) => (await db().user.findUniqueOrThrow({ where: { email } })).id;

describe("the schedule", () => {
  it("urgent: one reminder to each resolver at 30 min (not before), one escalation to owners/admins at 60", async () => {
    const { id, title } = await submit("acme", { priority: "urgent" });
    expect(firsts(title)).toEqual(["adam@acme.test", "mia@acme.test", "olga@acme.test"]);
    // The rows exist from the fan-out on, due at created + N and created + M.
    const due = (await rows(id)).filter((r) => r.kind !== "new");
    expect(due.map((r) => [r.kind, r.user.email, r.nextAttemptAt.getTime() - T0.getTime(), r.status])).toEqual([
      ["escalation", "adam@acme.test", 60 * MIN, "pending"],
      ["reminder", "adam@acme.test", 30 * MIN, "pending"],
      ["reminder", "mia@acme.test", 30 * MIN, "pending"],
      ["escalation", "olga@acme.test", 60 * MIN, "pending"],
      ["reminder", "olga@acme.test", 30 * MIN, "pending"],
    ]);

    await runAt(id, 30 * MIN - 1000);
    expect(reminders(title)).toEqual([]);
    await runAt(id, 30 * MIN);
    expect(reminders(title)).toEqual(["adam@acme.test", "mia@acme.test", "olga@acme.test"]);
    expect(received().find((r) => r.subject.startsWith("Reminder: "))?.subject).toBe(`Reminder: [urgent] ${title}`);
    expect(escalations(title)).toEqual([]);

    await runAt(id, 60 * MIN - 1000);
    expect(escalations(title)).toEqual([]);
    await runAt(id, 60 * MIN);
    expect(escalations(title)).toEqual(["adam@acme.test", "olga@acme.test"]); // never the member or the viewer
    // Later runs send nothing again: each reminder and escalation once.
    await runAt(id, 10 * 60 * MIN);
    expect(reminders(title)).toHaveLength(3);
    expect(escalations(title)).toHaveLength(2);
    expect(firsts(title)).toHaveLength(3);
    expect(received().some((r) => r.to === "vic@acme.test")).toBe(false);
  });

  it("normal: 4 h and 8 h; the reminder only to allowed_resolvers, the escalation to owners/admins anyway", async () => {
    const { id, title } = await submit("acme", { request: { mode: "confirm", allowed_resolvers: ["human:mia"] } });
    await runAt(id, 240 * MIN - 1000);
    expect(reminders(title)).toEqual([]);
    await runAt(id, 240 * MIN);
    expect(reminders(title)).toEqual(["mia@acme.test"]);
    await runAt(id, 480 * MIN - 1000);
    expect(escalations(title)).toEqual([]);
    await runAt(id, 480 * MIN);
    expect(escalations(title)).toEqual(["adam@acme.test", "olga@acme.test"]);
  });

  it("low: no reminder and no escalation by default", async () => {
    const { id, title } = await submit("acme", { priority: "low" });
    expect((await rows(id)).map((r) => r.kind)).toEqual(["new", "new", "new"]);
    await runAt(id, 30 * 24 * 60 * MIN);
    expect([...reminders(title), ...escalations(title)]).toEqual([]);
  });

  it("a task is reminded too", async () => {
    const { id, title } = await submit("acme", { priority: "high" }, "task");
    await runAt(id, 30 * MIN);
    expect(reminders(title)).toEqual(["adam@acme.test", "mia@acme.test", "olga@acme.test"]);
  });

  it("an admin demoted before the escalation is due gets none: re-checked at send time", async () => {
    const { id, title } = await submit("acme", { priority: "high" });
    const adam = await db().membership.findFirstOrThrow({ where: { handle: "adam", account: { slug: "acme" } } });
    await db().membership.update({ where: { id: adam.id }, data: { role: "member" } });
    try {
      await runAt(id, 60 * MIN);
    } finally {
      await db().membership.update({ where: { id: adam.id }, data: { role: "admin" } });
    }
    expect(escalations(title)).toEqual(["olga@acme.test"]);
    const adamsRow = (await rows(id, "escalation")).find((r) => r.user.email === "adam@acme.test");
    expect([adamsRow?.status, adamsRow?.lastErrorClass]).toEqual(["cancelled", "not_admin"]);
  });
});

describe("cancelled with the item", () => {
  const settledPending = async (id: string) =>
    (await rows(id)).filter((r) => r.kind !== "new").map((r) => [r.kind, r.status, r.lastErrorClass]);

  it("resolved, cancelled or expired: the pending rows are cancelled in the transition, and nothing is sent", async () => {
    const resolved = await submit("acme", { priority: "urgent" });
    const cancelled = await submit("acme", { priority: "urgent" });
    const expiring = await submit("acme", {
      priority: "urgent",
      expires_at: new Date(T0.getTime() + 20 * MIN).toISOString(),
    });

    clock.set(new Date(T0.getTime() + 10 * MIN));
    await resolveMessage({ kind: "human", userId: await userId("mia@acme.test") }, resolved.id, {
      resolution: "answered",
      value: "ship",
    });
    await cancelMessage(agents.acme as AgentPrincipal, cancelled.id);
    clock.set(new Date(T0.getTime() + 21 * MIN));
    expect(await expireMessage(expiring.id)).toBe(true);

    for (const item of [resolved, cancelled, expiring]) {
      const left = await settledPending(item.id);
      expect(left).toHaveLength(5); // 3 reminders + 2 escalations
      for (const r of left) expect(r.slice(1)).toEqual(["cancelled", "not_open"]);
      await runAt(item.id, 10 * 60 * MIN);
      expect([...reminders(item.title), ...escalations(item.title)]).toEqual([]);
      // The new-item mails had gone out before; the transition does not touch sent rows.
      expect((await rows(item.id, "new")).map((r) => r.status)).toEqual(["sent", "sent", "sent"]);
    }
  });

  it("an item still open is not touched by another item's transition", async () => {
    const open = await submit("acme", { priority: "urgent" });
    const other = await submit("acme", { priority: "urgent" });
    await cancelMessage(agents.acme as AgentPrincipal, other.id);
    expect((await settledPending(open.id)).every((r) => r[1] === "pending")).toBe(true);
  });
});

describe("the account's policy", () => {
  it("overrides are respected: a shorter normal reminder with its derived escalation, low turned on", async () => {
    const qo = "human:qo";
    const policy = await setReminderOverrides(
      (await db().account.findUniqueOrThrow({ where: { slug: "quick" } })).id,
      {
        normal: { remindMinutes: 5 },
        low: { remindMinutes: 1.5, escalateMinutes: null },
        urgent: { escalateMinutes: null },
      },
      qo,
    );
    expect(policy).toEqual({
      urgent: { remindMinutes: 30, escalateMinutes: null },
      high: { remindMinutes: 30, escalateMinutes: 60 },
      normal: { remindMinutes: 5, escalateMinutes: 10 },
      low: { remindMinutes: 1.5, escalateMinutes: null },
    });
    const audit = await db().auditEvent.findFirstOrThrow({ where: { event: "notifications.reminders_changed" } });
    expect(audit.actor).toBe(qo);

    const normal = await submit("quick");
    await runAt(normal.id, 5 * MIN - 1000);
    expect(reminders(normal.title)).toEqual([]);
    await runAt(normal.id, 5 * MIN);
    expect(reminders(normal.title)).toEqual(["qa@quick.test", "qm@quick.test", "qo@quick.test"]);
    await runAt(normal.id, 10 * MIN);
    expect(escalations(normal.title)).toEqual(["qa@quick.test", "qo@quick.test"]);

    const low = await submit("quick", { priority: "low" });
    await runAt(low.id, 89_000);
    expect(reminders(low.title)).toEqual([]);
    await runAt(low.id, 90_000); // fractional minutes: 1.5 min
    expect(reminders(low.title)).toHaveLength(3);
    await runAt(low.id, 24 * 60 * MIN);
    expect(escalations(low.title)).toEqual([]);

    const urgent = await submit("quick", { priority: "urgent" });
    expect((await rows(urgent.id)).map((r) => r.kind).sort()).toEqual([
      "new",
      "new",
      "new",
      "reminder",
      "reminder",
      "reminder",
    ]);
    // The other account keeps the defaults.
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    expect(await reminderPolicy(acme.id)).toEqual(effectivePolicy({}));
  });

  it("a stored policy that does not parse counts as none: the defaults apply", async () => {
    const quick = await db().account.findUniqueOrThrow({ where: { slug: "quick" } });
    const before = await db().accountNotificationSettings.findUniqueOrThrow({ where: { accountId: quick.id } });
    await db().accountNotificationSettings.update({
      where: { accountId: quick.id },
      data: { reminders: { normal: { remindMinutes: -3 } } },
    });
    try {
      expect(await reminderPolicy(quick.id)).toEqual(effectivePolicy({}));
    } finally {
      await db().accountNotificationSettings.update({
        where: { accountId: quick.id },
        data: { reminders: before.reminders ?? {} },
      });
    }
  });

  it("the form's fields: blank = default, off = never, minutes; every bad field named, nothing accepted", () => {
    const form = (v: Record<string, string>) => (name: string) => v[name] ?? "";
    expect(overridesFromForm(form({ normal_remind: " 60 ", low_remind: "0.5", urgent_escalate: "OFF" }))).toEqual({
      urgent: { escalateMinutes: null },
      normal: { remindMinutes: 60 },
      low: { remindMinutes: 0.5 },
    });
    const refused = (v: Record<string, string>) => {
      try {
        overridesFromForm(form(v));
      } catch (err) {
        expect(err).toBeInstanceOf(HubError);
        expect((err as HubError).code).toBe("invalid_field");
        return (err as HubError).message;
      }
      throw new Error("expected a refusal");
    };
    const msg = refused({ normal_remind: "abc", high_escalate: "-5", low_remind: "50000", urgent_remind: "0" });
    expect(msg).toContain('normal remind: "abc" is not a number of minutes or "off"');
    expect(msg).toContain('high escalate: "-5" is not a number');
    expect(msg).toContain("low remind: must be at most 43200 minutes");
    expect(msg).toContain("urgent remind: must be more than 0 minutes");
    expect(msg).toMatch(/^Nothing was changed\./);
    // An escalation before its reminder (here against the default 240 of normal).
    expect(refused({ normal_escalate: "60" })).toContain(
      "normal: the escalation (60 min) cannot come before the reminder (240 min)",
    );
  });
});

describe("the settings section", () => {
  it("shows the delays in force; the form (owners/admins) holds the overrides, blank for a default", async () => {
    const quick = await db().account.findUniqueOrThrow({ where: { slug: "quick" } });
    const render = async (canEdit: boolean) =>
      renderToStaticMarkup(await ReminderDelays({ accountId: quick.id, slug: "quick", canEdit })).replace(
        /<!-- -->/g,
        "",
      );
    const edit = await render(true);
    expect(edit).toMatch(/data-testid="reminder-policy-normal"><td>normal<\/td><td>5 min<\/td><td>10 min<\/td>/);
    expect(edit).toMatch(/data-testid="reminder-policy-low"><td>low<\/td><td>1.5 min<\/td><td>off<\/td>/);
    expect(edit).toMatch(/name="normal_remind" value="5"/);
    expect(edit).toMatch(/name="normal_escalate" value=""/);
    expect(edit).toMatch(/name="urgent_escalate" value="off"/);
    expect(edit).toContain('data-testid="reminder-form"');
    const view = await render(false);
    expect(view).toContain('data-testid="reminder-policy"');
    expect(view).not.toContain("reminder-form");
  });
});

describe("email off", () => {
  it("without SMTP_URL no reminder or escalation rows are made", async () => {
    const url = process.env.SMTP_URL;
    delete process.env.SMTP_URL;
    resetEnvCache();
    try {
      const { id } = await submit("acme", { priority: "urgent" });
      expect(await rows(id)).toEqual([]);
      expect(
        (await db().notificationOutbox.findUniqueOrThrow({ where: { messageId: id } })).processedAt,
      ).not.toBeNull();
    } finally {
      process.env.SMTP_URL = url;
      resetEnvCache();
    }
  });
});
