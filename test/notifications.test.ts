/**
 * Notifications by email, the foundation (docs/notifications.md): a real SMTP server from
 * `smtp-server` receives what the Hub's worker sends and `mailparser` reads it. The Hub runs as a
 * web + worker pair. Each account's humans get mail at `<handle>@<slug>.test`, and the server's
 * behaviour is chosen by the recipient's domain: `acme` accepts, `flaky`/`flaky2` answer the first DATA of
 * each recipient with a 451, `bounce` refuses every recipient with a 550, `stall` holds DATA
 * unanswered while the SIGKILL test asks it to (only a DATA the server answers 250 counts as received).
 */
// covers: lib/notifications/fanout.ts, lib/notifications/send.ts, lib/notifications/email-channel.ts, lib/notifications/smtp.ts, lib/notifications/recipients.ts, lib/notifications/compose.ts
import type { ParsedMail } from "mailparser";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import type { HubProcess } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { type MailCapture, startMailCapture } from "./support/mail-capture";
import { envelope } from "./support/provision";
import { startWorker } from "./support/push-kit";
import { staysFalse, waitFor } from "./support/wait";

const dataSeen = new Map<string, number>(); // recipient → DATA commands seen
/** While set, every DATA to `@stall.test` is held unanswered (not accepted), and this is told of it. */
let stalled: ((to: string) => void) | null = null;
let capture: MailCapture;
const received = () => capture.received;

async function startSmtp(): Promise<void> {
  capture = await startMailCapture({
    rcpt: (address) => (address.endsWith("@bounce.test") ? 550 : undefined),
    data: (to) => {
      const seen = (dataSeen.get(to) ?? 0) + 1;
      dataSeen.set(to, seen);
      if (/@flaky\d*\.test$/.test(to) && seen === 1) return 451;
      if (to.endsWith("@stall.test") && stalled) {
        stalled(to);
        return "hold";
      }
      return "accept";
    },
  });
}

const A = "bot/acme";
const env = () => ({
  SMTP_URL: capture.url,
  MA2H_MAIL_FROM: "MA2H Hub <hub@ma2h.test>",
  MA2H_NOTIFY_RETRY_BASE_MS: "1000",
  MA2H_NOTIFY_MAX_ATTEMPTS: "4",
  MA2H_SMTP_TIMEOUT_MS: "4000",
  MA2H_DELIVERY_SWEEP_MS: "500",
});

const hub = useHubFixture({
  server: "pair",
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
    flaky: { agents: ["bot/flaky"], humans: [{ handle: "fay", role: "member" }] },
    flaky2: {
      agents: ["bot/flaky2"],
      humans: [
        { handle: "fern", role: "owner" },
        { handle: "fred", role: "member" },
      ],
    },
    bounce: { agents: ["bot/bounce"], humans: [{ handle: "bo", role: "member" }] },
    stall: {
      agents: ["bot/stall"],
      humans: [
        { handle: "sam", role: "member" },
        { handle: "sue", role: "owner" },
      ],
    },
  },
  setup: startSmtp,
  env,
});

const extraWorkers: HubProcess[] = [];
afterAll(async () => {
  await Promise.all(extraWorkers.map((w) => w.stop()));
  await capture.close();
});

let n = 0;
async function submit(
  slug: string,
  agent: string,
  type: "ask" | "task" | "notify",
  over: Record<string, unknown> = {},
): Promise<{ id: string; title: string; ms: number }> {
  const title = `${type} ${slug} ${++n} ${Date.now()}`;
  const t0 = Date.now();
  const res = await hub.agent(agent, slug).post("/v1/messages", envelope(type, agent, { title, ...over }));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return { id: res.body.id as string, title, ms: Date.now() - t0 };
}

const mailsFor = (title: string) => received().filter((r) => r.mail.subject?.includes(title));

const until = <T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeout = 60_000): Promise<T> =>
  waitFor(f, { what, timeout, every: 100 });

/** The item's new-item notifications (its reminder and escalation rows, due hours later, are
 * test/notification-reminders.test.ts's). */
async function notificationsOf(messageId: string) {
  return db().notification.findMany({
    where: { messageId, kind: "new" },
    include: { user: { select: { email: true } }, attemptLog: { orderBy: { id: "asc" } } },
  });
}

async function settled(messageId: string, count: number, timeoutMs = 20_000) {
  return until(
    `${count} settled notifications of ${messageId}`,
    async () => {
      const rows = await notificationsOf(messageId);
      return rows.length === count && rows.every((r) => r.status === "sent" || r.status === "failed")
        ? rows
        : undefined;
    },
    timeoutMs,
  );
}

/** Two sweeps' time after the outbox row was processed, in which no notification row and no mail appears. */
const nobodyTold = (id: string, title: string) =>
  staysFalse(
    async () => (await notificationsOf(id)).length > 0 || mailsFor(title).length > 0,
    1500,
    "a notification or a mail",
    100,
  );

describe("who is told", () => {
  it("an ask without allowed_resolvers: one mail to each owner, admin and member; none to the viewer", async () => {
    const { id, title } = await submit("acme", A, "ask", { body: "Ship **v2** now?" });
    await settled(id, 3);
    const mails = mailsFor(title);
    expect(mails.map((m) => m.to).sort()).toEqual(["adam@acme.test", "mia@acme.test", "olga@acme.test"]);
    const m = mails[0]?.mail as ParsedMail;
    expect(m.subject).toBe(`[normal] ${title}`);
    expect(m.from?.text).toContain("hub@ma2h.test");
    expect(m.text).toContain(A); // the mail says which agent asks
    expect(m.text).toContain("Ship **v2** now?");
    expect(m.text).toContain(`/inbox/${id}`);
    expect(m.text).toContain("- Ship");
    expect(m.text).toContain("- Hold");
    expect(m.html).toContain(`/inbox/${id}"`);
    expect(String(m.html)).not.toMatch(/<img|<script/i);
    expect(m.messageId).toMatch(/^<ntf_/);
  });

  it("allowed_resolvers naming one human: only that human is told", async () => {
    const { id, title } = await submit("acme", A, "ask", {
      request: { mode: "confirm", allowed_resolvers: ["human:mia"] },
    });
    await settled(id, 1);
    // Two sweeps' time: nothing more comes.
    await staysFalse(() => mailsFor(title).length > 1, 1500, "a second mail");
    expect(mailsFor(title).map((m) => m.to)).toEqual(["mia@acme.test"]);
    expect(mailsFor(title)[0]?.mail.text).toContain("- Approve");
  });

  it("allowed_resolvers naming the viewer and an agent only: no one is mailed", async () => {
    const { id, title } = await submit("acme", A, "task", {
      action: { instructions: "Rotate", allowed_resolvers: ["human:vic", `agent:${A}`] },
    });
    await until("the outbox processed", async () =>
      (await db().notificationOutbox.findUnique({ where: { messageId: id } }))?.processedAt ? true : undefined,
    );
    await nobodyTold(id, title);
    expect(await notificationsOf(id)).toEqual([]);
    expect(mailsFor(title)).toEqual([]);
  });

  it("a notify nobody opted into mails no one: its outbox row is processed, no notification rows", async () => {
    const { id, title } = await submit("acme", A, "notify");
    await until("the outbox processed", async () =>
      (await db().notificationOutbox.findUnique({ where: { messageId: id } }))?.processedAt ? true : undefined,
    );
    await nobodyTold(id, title);
    expect(await notificationsOf(id)).toEqual([]);
    expect(mailsFor(title)).toEqual([]);
  });
});

describe("what a mail carries", () => {
  it("a sensitive item: title and link only — no body, context or option descriptions", async () => {
    const { id, title } = await submit("acme", A, "ask", {
      sensitive: true,
      body: "SECRET-BODY-MARKER",
      context: [{ kind: "text", text: "SECRET-CONTEXT-MARKER" }],
      request: {
        mode: "select",
        options: [
          { value: "a", label: "SECRET-LABEL-A", description: "SECRET-DESC-A" },
          { value: "b", label: "Other" },
        ],
        allowed_resolvers: ["human:olga"],
      },
    });
    await settled(id, 1);
    const m = mailsFor(title)[0]?.mail as ParsedMail;
    expect(m.subject).toBe(`[normal] ${title}`);
    expect(m.text).toContain(`/inbox/${id}`);
    const all = `${m.text}\n${m.html}`;
    for (const secret of ["SECRET-BODY-MARKER", "SECRET-CONTEXT-MARKER", "SECRET-DESC-A", "SECRET-LABEL-A"])
      expect(all).not.toContain(secret);
  });

  it("the agent's raw HTML never reaches the HTML part; the text part keeps it as text", async () => {
    const { id, title } = await submit("acme", A, "ask", {
      body: '<img src="https://evil.example/x.png"><script>alert(1)</script>',
      request: { mode: "confirm", allowed_resolvers: ["human:olga"] },
    });
    await settled(id, 1);
    const m = mailsFor(title)[0]?.mail as ParsedMail;
    expect(String(m.html)).not.toMatch(/<img|<script|evil\.example/i); // dropped by the Markdown pipeline
    expect(m.text).toContain('<img src="https://evil.example/x.png">');
  });
});

describe("timing and the request path", () => {
  it("an urgent ask reaches the SMTP server within 10 s of its submit; the submit wrote only the outbox row", async () => {
    const t0 = Date.now();
    const { id, title } = await submit("acme", A, "ask", {
      priority: "urgent",
      request: { mode: "confirm", allowed_resolvers: ["human:adam"] },
    });
    // Committed with the message: the obligation exists the moment the 202 is seen.
    expect(await db().notificationOutbox.findUnique({ where: { messageId: id } })).not.toBeNull();
    const got = await until("the urgent mail", () => mailsFor(title)[0], 10_000);
    expect(got.at - t0).toBeLessThan(10_000);
    expect(got.mail.subject).toBe(`[urgent] ${title}`);
  });
});

describe("retries", () => {
  it("a 4xx is transient: retried with backoff and delivered once", async () => {
    const { id, title } = await submit("flaky", "bot/flaky", "ask");
    const [row] = await settled(id, 1);
    expect(row?.status).toBe("sent");
    expect(row?.attemptLog.map((a) => [a.outcome, a.errorClass, a.responseCode])).toEqual([
      ["retry", "smtp_4xx", 451],
      ["sent", null, 250],
    ]);
    const gap = (row?.attemptLog[1]?.at.getTime() ?? 0) - (row?.attemptLog[0]?.at.getTime() ?? 0);
    expect(gap).toBeGreaterThanOrEqual(900); // the 1 s base delay
    await staysFalse(() => mailsFor(title).length > 1, 1500, "a second mail after the delivery");
    expect(mailsFor(title).map((m) => m.to)).toEqual(["fay@flaky.test"]);
  });

  it("a person whose seat is removed before a retry is not mailed: the rest is cancelled", async () => {
    const { id, title } = await submit("flaky2", "bot/flaky2", "ask");
    await until("both first attempts refused", async () => {
      const rows = await notificationsOf(id);
      return rows.length === 2 && rows.every((r) => r.attemptLog.length === 1) ? true : undefined;
    });
    await db().membership.deleteMany({ where: { handle: "fred", account: { slug: "flaky2" } } });
    await until("fern's mail and fred's cancellation", async () => {
      const rows = await notificationsOf(id);
      return rows.every((r) => r.status !== "pending" && r.status !== "sending") ? rows : undefined;
    });
    const rows = await notificationsOf(id);
    expect(Object.fromEntries(rows.map((r) => [r.user.email, [r.status, r.lastErrorClass]]))).toEqual({
      "fern@flaky2.test": ["sent", null],
      "fred@flaky2.test": ["cancelled", "not_resolver"],
    });
    expect(mailsFor(title).map((m) => m.to)).toEqual(["fern@flaky2.test"]);
  });

  it("a 5xx is permanent: one attempt, logged with its class, never retried", async () => {
    const { id, title } = await submit("bounce", "bot/bounce", "ask");
    const [row] = await settled(id, 1);
    // Longer than the backoff's first steps: never retried.
    await staysFalse(
      async () => (await notificationsOf(id))[0]?.attempts !== 1 || mailsFor(title).length > 0,
      2500,
      "a retry of the refused mail",
      100,
    );
    const again = (await notificationsOf(id))[0];
    expect(again?.status).toBe("failed");
    expect(again?.attempts).toBe(1);
    expect(again?.attemptLog.map((a) => [a.channel, a.outcome, a.errorClass, a.responseCode])).toEqual([
      ["email", "failed", "smtp_5xx", 550],
    ]);
    expect(row?.userId).toBe(again?.userId);
    expect(mailsFor(title)).toEqual([]);
  });
});

describe("durability", () => {
  it("a worker SIGKILLed mid-send: a new worker sends the rest, each recipient gets exactly one mail", async () => {
    const firstStall = new Promise<string>((resolve) => {
      stalled = resolve;
    });
    const { id, title } = await submit("stall", "bot/stall", "ask");
    await firstStall; // one SMTP DATA is in flight and unanswered: the worker is mid-send
    await hub.worker.stop("SIGKILL");
    stalled = null; // from now on the server accepts
    const claimed = await notificationsOf(id);
    expect(claimed.some((r) => r.status === "sending")).toBe(true);

    extraWorkers.push(await startWorker(hub.databaseUrl, env()));
    const rows = await settled(id, 2, 45_000);
    expect(rows.every((r) => r.status === "sent")).toBe(true);
    expect(
      mailsFor(title)
        .map((m) => m.to)
        .sort(),
    ).toEqual(["sam@stall.test", "sue@stall.test"]);
    // The interrupted send is on the record, and its resend carried the same Message-ID.
    const outcomes = rows.flatMap((r) => r.attemptLog.map((a) => a.outcome));
    expect(outcomes).toContain("interrupted");
    for (const r of rows) expect(mailsFor(title).find((m) => m.to === r.user.email)?.mail.messageId).toMatch(r.id);
    await staysFalse(() => mailsFor(title).length > 2, 2000, "a third mail");
    expect(mailsFor(title)).toHaveLength(2);
  });
});
