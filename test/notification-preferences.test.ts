/**
 * Notification preferences, notify opt-in and digests (docs/notifications.md "Preferences",
 * "Digests"), in this process with the Hub clock pinned: the lib verbs submit, fan out
 * (`processNotifications`) and sweep (`sweepNotifications`), and a real SMTP server from
 * `smtp-server` receives the mail, read with `mailparser`. Each person's address is
 * `<handle>@<slug>.test`; the server answers the first digest mail to each `@flaky.test` recipient
 * with a 451 (transient).
 */
// covers: lib/notifications/preferences.ts, lib/notifications/preferences-store.ts, lib/notifications/recipients.ts, lib/notifications/digest.ts, lib/notifications/settings-store.ts, lib/notifications/fanout.ts
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ParsedMail } from "mailparser";
import { AUDIT_EVENT } from "../lib/audit/events";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { resetEnvCache } from "../lib/env";
import { submitMessage } from "../lib/messages/submit";
import { processNotifications, sweepNotifications } from "../lib/notifications/fanout";
import { BUILT_IN, type Preferences } from "../lib/notifications/preferences";
import { savePreferences } from "../lib/notifications/preferences-store";
import { saveAccountDefaults, setEmailAnswerWithoutSignIn } from "../lib/notifications/settings-store";
import { accountNotificationSettings } from "../lib/notifications/settings";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { seatFor } from "../lib/principals/seats";
import type { AgentPrincipal, Role } from "../lib/principals/types";
import { HubError } from "@ma2h/protocol/errors";
import { useHubFixture } from "./support/hub-fixture";
import { type MailCapture, startMailCapture } from "./support/mail-capture";
import { envelope } from "./support/provision";

const dataSeen = new Map<string, number>();
let capture: MailCapture;

async function startSmtp(): Promise<void> {
  // The first digest mail to each `@flaky.test` recipient is answered 451 (transient).
  capture = await startMailCapture({
    data: (to, raw) => {
      const digest = raw.includes("notifications in flaky");
      const seen = (dataSeen.get(to) ?? 0) + (digest ? 1 : 0);
      dataSeen.set(to, seen);
      return to.endsWith("@flaky.test") && digest && seen === 1 ? 451 : "accept";
    },
  });
  process.env.SMTP_URL = capture.url;
  process.env.MA2H_MAIL_FROM = "MA2H Hub <hub@ma2h.test>";
  process.env.MA2H_NOTIFY_RETRY_BASE_MS = "60000";
  process.env.MA2H_PUBLIC_URL = "https://hub.ma2h.test";
  resetEnvCache();
}

const A = "bot/acme";
const F = "bot/flaky";
const hub = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: [A],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "adam", role: "admin" },
        { handle: "mia", role: "member" },
        { handle: "max", role: "member" },
        { handle: "nia", role: "member" },
        { handle: "vic", role: "viewer" },
      ],
    },
    flaky: { agents: [F], humans: [{ handle: "fay", role: "member" }] },
  },
  setup: startSmtp,
});

afterAll(async () => {
  setClock(null);
  for (const k of ["SMTP_URL", "MA2H_MAIL_FROM", "MA2H_NOTIFY_RETRY_BASE_MS", "MA2H_PUBLIC_URL"]) delete process.env[k];
  resetEnvCache();
  await capture.close();
});

// 12:00 UTC on a summer day; every quiet window below is placed around it.
const T0 = new Date("2031-07-01T12:00:00.000Z");
const clockAt = fixedClock(T0);
const agents: Record<string, AgentPrincipal> = {};
const users: Record<string, string> = {}; // handle → user id

beforeAll(async () => {
  for (const [slug, id] of [
    ["acme", A],
    ["flaky", F],
  ] as const)
    agents[id] = requireAgent(
      await authenticate(new Headers({ authorization: `Bearer ${hub.account(slug).keys[id]}` })),
    );
  for (const u of await db().user.findMany({ select: { id: true, email: true } }))
    users[u.email.split("@")[0] as string] = u.id;
  // This file is about the new-item and notify mail: reminders and escalations (which the pinned
  // clock's jumps would make due) are off here; test/notification-reminders.test.ts has them.
  const off = { remindMinutes: null };
  const reminders = { urgent: off, high: off, normal: off, low: off };
  for (const a of await db().account.findMany({ select: { id: true } }))
    await db().accountNotificationSettings.upsert({
      where: { accountId: a.id },
      create: { accountId: a.id, reminders, updatedAt: T0 },
      update: { reminders },
    });
});

beforeEach(() => {
  clockAt.set(T0);
  setClock(clockAt);
});

async function seat(handle: string, slug = "acme") {
  const account = await db().account.findUniqueOrThrow({ where: { slug } });
  const s = await seatFor(users[handle] as string, account.id);
  if (!s) throw new Error(`${handle} has no seat in ${slug}`);
  return s;
}

/** Saves a person's preferences: the built-in ones with `over` applied (through the real writer). */
async function prefer(
  handle: string,
  over: Partial<Preferences> & { email?: Partial<Preferences["channels"]["email"]> },
  slug = "acme",
) {
  const { email, ...rest } = over;
  const prefs = {
    ...BUILT_IN,
    ...rest,
    channels: { ...BUILT_IN.channels, email: { ...BUILT_IN.channels.email, ...email } },
  };
  await savePreferences(users[handle] as string, await seat(handle, slug), prefs);
}

let n = 0;
async function submit(type: "ask" | "task" | "notify", over: Record<string, unknown> = {}, agent = A) {
  const title = `${type} ${++n} ${over.priority ?? "normal"}`;
  const { ack } = await submitMessage(agents[agent] as AgentPrincipal, envelope(type, agent, { title, ...over }));
  return { id: ack.id, title };
}

const mailsFor = (title: string) =>
  capture.received.filter((r) => r.mail.subject?.includes(title) || r.mail.text?.includes(title));
const toOf = (title: string) =>
  mailsFor(title)
    .map((r) => r.to)
    .sort();
const rowsOf = (messageId: string) =>
  db().notification.findMany({
    where: { messageId },
    include: { user: { select: { email: true } }, attemptLog: { orderBy: { id: "asc" } } },
  });
const only = (handles: string[]) => handles.map((h) => `human:${h}`);

describe("quiet hours", () => {
  it("hold back a normal item; an urgent one breaks through only for who chose so", async () => {
    const quiet = { start: "11:00", end: "13:30" }; // T0 (12:00 UTC) is inside
    await prefer("mia", { quietHours: { ...quiet, urgentBreaksThrough: true } });
    await prefer("max", { quietHours: { ...quiet, urgentBreaksThrough: false } });
    const resolvers = { allowed_resolvers: only(["mia", "max"]) };
    const normal = await submit("ask", { request: { mode: "confirm", ...resolvers } });
    const urgent = await submit("ask", { priority: "urgent", request: { mode: "confirm", ...resolvers } });
    await processNotifications(normal.id);
    await processNotifications(urgent.id);

    expect(toOf(normal.title)).toEqual([]);
    expect(toOf(urgent.title)).toEqual(["mia@acme.test"]);
    const end = new Date("2031-07-01T13:30:00.000Z");
    const held = (await rowsOf(normal.id)).map((r) => [r.user.email, r.status, r.nextAttemptAt.toISOString()]);
    expect(held.sort()).toEqual([
      ["max@acme.test", "pending", end.toISOString()],
      ["mia@acme.test", "pending", end.toISOString()],
    ]);

    // A minute before the end nothing more goes; at the end each held mail goes once.
    clockAt.set(new Date(end.getTime() - 60_000));
    await processNotifications(normal.id);
    await processNotifications(urgent.id);
    expect(toOf(normal.title)).toEqual([]);
    clockAt.set(end);
    await sweepNotifications(); // wakes the job (no worker here) — so call it as the worker would
    await processNotifications(normal.id);
    await processNotifications(urgent.id);
    await processNotifications(urgent.id);
    expect(toOf(normal.title)).toEqual(["max@acme.test", "mia@acme.test"]);
    expect(toOf(urgent.title)).toEqual(["max@acme.test", "mia@acme.test"]);
    for (const id of [normal.id, urgent.id])
      for (const r of await rowsOf(id))
        expect([r.status, r.attemptLog.map((a) => a.outcome)]).toEqual(["sent", ["sent"]]);
  });

  it("are read in the person's time zone", async () => {
    // 12:00 UTC is 21:00 in Tokyo: inside 20:00–08:00 there → held until 08:00 Tokyo (23:00 UTC).
    await prefer("nia", {
      timeZone: "Asia/Tokyo",
      quietHours: { start: "20:00", end: "08:00", urgentBreaksThrough: false },
    });
    const { id, title } = await submit("task", {
      action: { instructions: "Rotate", allowed_resolvers: only(["nia"]) },
    });
    await processNotifications(id);
    expect(toOf(title)).toEqual([]);
    expect((await rowsOf(id))[0]?.nextAttemptAt.toISOString()).toBe("2031-07-01T23:00:00.000Z");
  });
});

describe("minimum priority", () => {
  it("below it no row and no mail; at it a mail", async () => {
    await prefer("mia", { email: { minPriority: "high" } });
    const low = await submit("ask", { request: { mode: "confirm", allowed_resolvers: only(["mia"]) } });
    const high = await submit("ask", {
      priority: "high",
      request: { mode: "confirm", allowed_resolvers: only(["mia"]) },
    });
    await processNotifications(low.id);
    await processNotifications(high.id);
    expect(await rowsOf(low.id)).toEqual([]);
    expect(toOf(low.title)).toEqual([]);
    expect(toOf(high.title)).toEqual(["mia@acme.test"]);
    expect(
      (await db().notificationOutbox.findUniqueOrThrow({ where: { messageId: low.id } })).processedAt,
    ).not.toBeNull();
  });
});

describe("who is told", () => {
  it("a notify: only those who opted in — a viewer may — each once; the rest nothing", async () => {
    await prefer("mia", { email: { notify: true } });
    await prefer("vic", { email: { notify: true } });
    const { id, title } = await submit("notify", { body: "NOTIFY-BODY-MARKER" });
    await processNotifications(id);
    await processNotifications(id);
    await sweepNotifications();
    expect(toOf(title)).toEqual(["mia@acme.test", "vic@acme.test"]);
    const m = mailsFor(title)[0]?.mail as ParsedMail;
    expect(m.subject).toBe(`[normal] ${title}`);
    expect(m.text).toContain(A);
    expect(m.text).toContain(`https://hub.ma2h.test/inbox/${id}`);
    expect(m.text).not.toContain("NOTIFY-BODY-MARKER"); // a notify mail lists, the Hub shows
    expect((await rowsOf(id)).map((r) => [r.user.email, r.status, r.digest]).sort()).toEqual([
      ["mia@acme.test", "sent", false],
      ["vic@acme.test", "sent", false],
    ]);
  });

  it("a viewer never gets an ask or a task, even with everything on and listed", async () => {
    await prefer("vic", { email: { askTask: true, notify: true, minPriority: "low" } });
    const listed = await submit("ask", {
      priority: "urgent",
      request: { mode: "confirm", allowed_resolvers: only(["vic", "mia"]) },
    });
    const open = await submit("task", { action: { instructions: "Look" } });
    await processNotifications(listed.id);
    await processNotifications(open.id);
    expect(toOf(listed.title)).toEqual(["mia@acme.test"]);
    expect(toOf(open.title)).not.toContain("vic@acme.test");
    expect(toOf(open.title)).toContain("olga@acme.test");
    for (const id of [listed.id, open.id])
      expect((await rowsOf(id)).some((r) => r.user.email === "vic@acme.test")).toBe(false);
  });

  it("the account's defaults apply to whoever has not chosen; a person's own choice wins", async () => {
    const account = await db().account.findUniqueOrThrow({ where: { slug: "flaky" } });
    const fay = await seat("fay", "flaky");
    await saveAccountDefaults(
      { accountId: account.id, role: "owner" as Role, actor: "human:test" },
      { ...BUILT_IN, channels: { ...BUILT_IN.channels, email: { ...BUILT_IN.channels.email, askTask: false } } },
    );
    const { id } = await submit("ask", { request: { mode: "confirm" } }, F);
    await processNotifications(id);
    expect(await rowsOf(id)).toEqual([]); // the default turned email off for asks
    await savePreferences(users.fay as string, fay, BUILT_IN);
    const again = await submit("ask", { request: { mode: "confirm" } }, F);
    await processNotifications(again.id);
    expect((await rowsOf(again.id)).map((r) => r.user.email)).toEqual(["fay@flaky.test"]);
  });
});

describe("digests", () => {
  it("several notifies → one mail listing each (a sensitive one by title and link only), each row sent once", async () => {
    await prefer("olga", { email: { notify: true, digest: "hourly" } });
    const a = await submit("notify", { priority: "high" });
    clockAt.advance(10 * 60_000);
    const b = await submit("notify", { sensitive: true, title: "SENSITIVE-TITLE", body: "SECRET-BODY" });
    clockAt.advance(10 * 60_000);
    const c = await submit("notify");
    for (const x of [a, b, c]) await processNotifications(x.id);
    const olgaRows = async () =>
      (await Promise.all([a, b, c].map((x) => rowsOf(x.id)))).flat().filter((r) => r.user.email === "olga@acme.test");
    expect((await olgaRows()).map((r) => [r.digest, r.status, r.nextAttemptAt.toISOString()])).toEqual(
      Array(3).fill([true, "pending", "2031-07-01T13:00:00.000Z"]),
    );
    const digestsTo = () =>
      capture.received.filter((r) => r.to === "olga@acme.test" && /notifications in acme/.test(r.mail.subject ?? ""));
    await sweepNotifications(); // 12:20: not yet due
    expect(digestsTo()).toEqual([]);

    clockAt.set(new Date("2031-07-01T13:00:00.000Z"));
    await sweepNotifications();
    await sweepNotifications();
    expect(digestsTo().length).toBe(1);
    const m = digestsTo()[0]?.mail as ParsedMail;
    expect(m.subject).toBe("3 notifications in acme");
    for (const x of [a, c]) {
      expect(m.text).toContain(`[${x.title.endsWith("high") ? "high" : "normal"}] ${x.title} — ${A}`);
      expect(m.text).toContain(`https://hub.ma2h.test/inbox/${x.id}`);
    }
    expect(m.text).toContain(`https://hub.ma2h.test/inbox/${b.id}`);
    const sensitiveLine = (m.text ?? "").split("\n").find((l) => l.includes("SENSITIVE-TITLE"));
    expect(sensitiveLine).toBe("- SENSITIVE-TITLE"); // no priority, no agent
    expect(`${m.text}${m.html}`).not.toContain("SECRET-BODY");
    const rows = await olgaRows();
    expect(rows.every((r) => r.status === "sent" && r.attemptLog.map((l) => l.outcome).join() === "sent")).toBe(true);
    expect(new Set(rows.map((r) => r.batchId)).size).toBe(1);
    expect(m.messageId).toBe(`<${rows[0]?.batchId}@hub.ma2h.test>`);
  });

  it("a transient failure retries the whole digest later; an interrupted one is sent again", async () => {
    await prefer("fay", { email: { notify: true, digest: "daily" } }, "flaky");
    const a = await submit("notify", {}, F);
    const b = await submit("notify", {}, F);
    for (const x of [a, b]) await processNotifications(x.id);
    const fayRows = async () => (await Promise.all([a, b].map((x) => rowsOf(x.id)))).flat();
    // Daily at 08:00 UTC: the next one is tomorrow's.
    const due = new Date("2031-07-02T08:00:00.000Z");
    expect((await fayRows()).map((r) => r.nextAttemptAt.toISOString())).toEqual([due.toISOString(), due.toISOString()]);

    clockAt.set(due);
    await sweepNotifications(); // the server answers 451
    let rows = await fayRows();
    expect(rows.map((r) => [r.status, r.lastErrorClass, r.attemptLog.map((l) => l.outcome).join()])).toEqual(
      Array(2).fill(["pending", "smtp_4xx", "retry"]),
    );
    const digests = () =>
      capture.received.filter((r) => r.to === "fay@flaky.test" && r.mail.subject?.includes("notifications in"));
    expect(digests()).toEqual([]);

    // Claimed, then the worker "dies": the lease runs out, the sweep logs it and sends again.
    clockAt.set(new Date(due.getTime() + 60_000));
    await db().notification.updateMany({
      where: { id: { in: rows.map((r) => r.id) } },
      data: {
        status: "sending",
        attempts: { increment: 1 },
        leaseUntil: new Date(due.getTime() + 30_000),
        batchId: "ntf_lost",
      },
    });
    await sweepNotifications();
    rows = await fayRows();
    expect(rows.map((r) => [r.status, r.attemptLog.map((l) => l.outcome).join()])).toEqual(
      Array(2).fill(["sent", "retry,interrupted,sent"]),
    );
    const mails = digests();
    expect(mails.length).toBe(1);
    expect(mails[0]?.mail.subject).toBe("2 notifications in flaky");
  });

  it("a person who turns notify off before the digest goes gets none of it", async () => {
    await prefer("max", { email: { notify: true, digest: "hourly" } });
    const { id } = await submit("notify");
    await processNotifications(id);
    await prefer("max", { email: { notify: false } });
    clockAt.set(new Date("2031-07-01T13:00:00.000Z"));
    await sweepNotifications();
    const row = (await rowsOf(id)).find((r) => r.user.email === "max@acme.test");
    expect([row?.status, row?.lastErrorClass, row?.attemptLog]).toEqual(["cancelled", "opted_out", []]);
    expect(capture.received.filter((r) => r.to === "max@acme.test" && r.mail.text?.includes(id))).toEqual([]);
  });
});

describe("settings writes", () => {
  const audits = (event: string) => db().auditEvent.findMany({ where: { event }, orderBy: { id: "asc" } });

  it("a preference change is audited by field name, in the person's own stream with them as actor", async () => {
    const before = (await audits(AUDIT_EVENT.notificationPreferencesChanged)).length;
    await prefer("adam", { timeZone: "Europe/Berlin", email: { minPriority: "urgent" } });
    const rows = await audits(AUDIT_EVENT.notificationPreferencesChanged);
    expect(rows.length).toBe(before + 1);
    const last = rows.at(-1);
    expect([last?.userId, last?.accountId, last?.actor]).toEqual([users.adam, null, `user:${users.adam}`]);
    expect(last?.detail).toEqual({ account: "acme", changed: ["channels.email.minPriority", "timeZone"] });
    expect(JSON.stringify(last?.detail)).not.toContain("Berlin");
  });

  it("bad input is refused with the field named, and changes nothing", async () => {
    const s = await seat("mia");
    const stored = () =>
      db().notificationPreference.findUnique({
        where: { userId_accountId: { userId: users.mia as string, accountId: s.accountId } },
      });
    const before = await stored();
    const count = (await audits(AUDIT_EVENT.notificationPreferencesChanged)).length;
    for (const bad of [
      { ...BUILT_IN, timeZone: "Mars/Olympus" },
      { ...BUILT_IN, quietHours: { start: "7pm", end: "07:00", urgentBreaksThrough: true } },
      {
        ...BUILT_IN,
        channels: { ...BUILT_IN.channels, email: { ...BUILT_IN.channels.email, minPriority: "extreme" } },
      },
    ]) {
      const err = await savePreferences(users.mia as string, s, bad).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HubError);
      expect((err as HubError).code).toBe("validation_error");
      expect((err as HubError).message).toMatch(/timeZone|quietHours\.start|minPriority/);
    }
    expect(await stored()).toEqual(before);
    expect((await audits(AUDIT_EVENT.notificationPreferencesChanged)).length).toBe(count);
  });

  it("only an owner turns answering from an email without signing in off; an admin is refused and nothing changes", async () => {
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    expect((await accountNotificationSettings(acme.id)).emailAnswerWithoutSignIn).toBe(true);
    const asAdmin = await setEmailAnswerWithoutSignIn(
      { accountId: acme.id, role: "admin", actor: "human:adam" },
      false,
    ).catch((e: unknown) => e);
    expect((asAdmin as HubError).code).toBe("not_authorized");
    expect((await accountNotificationSettings(acme.id)).emailAnswerWithoutSignIn).toBe(true);
    expect(await audits(AUDIT_EVENT.notificationEmailAnswerChanged)).toEqual([]);

    const bad = await setEmailAnswerWithoutSignIn(
      { accountId: acme.id, role: "owner", actor: "human:olga" },
      "no",
    ).catch((e: unknown) => e);
    expect((bad as HubError).code).toBe("validation_error");

    expect(
      await setEmailAnswerWithoutSignIn({ accountId: acme.id, role: "owner", actor: "human:olga" }, false),
    ).toEqual({
      changed: true,
    });
    expect((await accountNotificationSettings(acme.id)).emailAnswerWithoutSignIn).toBe(false);
    const rows = await audits(AUDIT_EVENT.notificationEmailAnswerChanged);
    expect(rows.map((r) => [r.actor, r.detail])).toEqual([["human:olga", { enabled: false }]]);
    await setEmailAnswerWithoutSignIn({ accountId: acme.id, role: "owner", actor: "human:olga" }, true);
  });

  it("a member may not change the account's defaults", async () => {
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    const err = await saveAccountDefaults({ accountId: acme.id, role: "member", actor: "human:mia" }, BUILT_IN).catch(
      (e: unknown) => e,
    );
    expect((err as HubError).code).toBe("not_authorized");
    expect((await accountNotificationSettings(acme.id)).defaults).toEqual({});
  });
});
