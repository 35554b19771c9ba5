/**
 * Answering from the mail (docs/notifications.md "Answering from the mail"), against a real
 * web + worker pair, a real SMTP server (test/support/mail-capture.ts) and a loopback push receiver:
 * one mail per resolver with one link per option; a GET of every link — what a mail scanner does —
 * changes nothing; the POST from the link's page resolves as that person through the normal §7 CAS,
 * and the agent's pushed Response verifies (test/support/agent-verify.ts, written from the spec) and
 * equals the pulled one; reuse, another item's link, garbage, an expired link, a removed seat, a
 * cross-site POST and (with the account setting off) a missing or foreign session are refused and
 * change nothing.
 */
// covers: lib/notifications/email-answer.ts, lib/notifications/answer-tokens.ts, app/e/[token]/route.ts, app/e/[token]/view.ts
import type { ParsedMail } from "mailparser";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { setEmailAnswerSensitiveWithoutSignIn } from "../lib/notifications/settings-store";
import { createWebSession } from "../lib/principals/web-sessions";
import { addBinding } from "../lib/principals/bindings";
import { hashCredential } from "../lib/secrets";
import { AgentVerifier } from "./support/agent-verify";
import { useHubFixture } from "./support/hub-fixture";
import { answerLinks, type MailCapture, startMailCapture } from "./support/mail-capture";
import { envelope } from "./support/provision";
import { submitPush } from "./support/push-kit";
import { staysFalse, waitFor } from "./support/wait";

const A = "bot/acme";
const SECRET = "email-answer-push-secret";
let smtp: MailCapture;

const hub = useHubFixture({
  server: "pair",
  receivers: 1,
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
    gone: {
      agents: ["bot/gone"],
      humans: [
        { handle: "rita", role: "member" },
        { handle: "owen", role: "admin" },
      ],
    },
    strict: {
      agents: ["bot/strict"],
      humans: [
        { handle: "sol", role: "member" },
        { handle: "tom", role: "member" },
      ],
    },
    careful: {
      agents: ["bot/careful"],
      humans: [
        { handle: "cora", role: "owner" },
        { handle: "max", role: "member" },
      ],
    },
  },
  setup: async (h) => {
    smtp = await startMailCapture();
    await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: h.receiver.origin,
      secretRef: "cb",
      secret: SECRET,
    });
    // The owners' switch, off for `strict` (written as the settings page will write it).
    const strict = await db().account.findUniqueOrThrow({ where: { slug: "strict" } });
    await db().accountNotificationSettings.create({
      data: { accountId: strict.id, emailAnswerWithoutSignIn: false, updatedAt: new Date() },
    });
    // acme's owner relaxed the sign-in for high/urgent and restricted asks (the tests above answer
    // restricted asks with the link alone); `careful` keeps the default.
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    await db().accountNotificationSettings.create({
      data: { accountId: acme.id, emailAnswerSensitiveWithoutSignIn: true, updatedAt: new Date() },
    });
  },
  env: (h) => ({
    SMTP_URL: smtp.url,
    MA2H_MAIL_FROM: "MA2H Hub <hub@ma2h.test>",
    MA2H_DELIVERY_SWEEP_MS: "500",
    MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin,
    MA2H_PUSH_BASE_DELAY_MS: "500",
  }),
});

afterAll(() => smtp.close());

let n = 0;
async function submit(slug: string, agent: string, type: "ask" | "task", over: Record<string, unknown> = {}) {
  const title = `${type} ${slug} ${++n} ${Date.now()}`;
  const res = await hub.agent(agent, slug).post("/v1/messages", envelope(type, agent, { title, ...over }));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return { id: res.body.id as string, title };
}

/** The mails about `title`, by recipient, once `count` have arrived and no more within two sweeps. */
async function mailsAbout(title: string, count: number): Promise<Map<string, ParsedMail>> {
  const mine = () => smtp.received.filter((r) => r.mail.subject?.includes(title));
  await waitFor(() => mine().length >= count, { what: `${count} mails about ${title}`, timeout: 60_000 });
  // Two sweeps (every 500 ms) and a bit: a window in which no extra mail may arrive.
  await staysFalse(() => mine().length > count, 1200, `a mail beyond the ${count} about ${title}`);
  expect(mine()).toHaveLength(count);
  return new Map(mine().map((r) => [r.to, r.mail]));
}

function linksOf(mail: ParsedMail | undefined): Map<string, string> {
  if (!mail) throw new Error("no such mail");
  return answerLinks(mail);
}

const tokenOf = (link: string) => link.slice(link.lastIndexOf("/") + 1);

/** The link's page, as a browser with no session (or with `cookie`) sees it. */
async function open(link: string, cookie?: string) {
  const res = await fetch(link, { redirect: "manual", headers: cookie ? { cookie } : {} });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** The page's form, submitted from the Hub's own origin (as the browser does). */
async function confirm(link: string, headers: Record<string, string> = {}) {
  const res = await fetch(link, { method: "POST", redirect: "manual", headers: { origin: hub.url, ...headers } });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

const stateOf = (html: string) => /data-state="([a-z_]+)"/.exec(html)?.[1];

async function messageState(id: string) {
  const row = await db().message.findUniqueOrThrow({ where: { id }, include: { resolution: true } });
  const tokens = await db().emailAnswerToken.findMany({ where: { messageId: id } });
  const audit = await db().auditEvent.findMany({ where: { messageId: id }, orderBy: { at: "asc" } });
  return { row, tokens, audit };
}

async function sessionCookie(handle: string, slug: string): Promise<string> {
  const user = await db().user.findUniqueOrThrow({ where: { email: `${handle}@${slug}.test` } });
  const token = `session-${handle}-${Date.now()}`;
  await createWebSession(user.id, token, new Date(Date.now() + 3600_000));
  return `next-auth.session-token=${token}`;
}

describe("the mail's answer links", () => {
  it("one mail per resolver with one link per option; none for the viewer; only hashes stored", async () => {
    const { id, title } = await submit("acme", A, "ask");
    const mails = await mailsAbout(title, 3);
    expect([...mails.keys()].sort()).toEqual(["adam@acme.test", "mia@acme.test", "olga@acme.test"]);
    const all: string[] = [];
    for (const mail of mails.values()) {
      const links = linksOf(mail);
      expect([...links.keys()]).toEqual(["Ship", "Hold"]);
      for (const link of links.values()) {
        expect(link).toMatch(new RegExp(`^${hub.url}/e/[A-Za-z0-9_-]{43}$`));
        expect(String(mail.html)).toContain(`href="${link}"`);
        all.push(link);
      }
    }
    expect(new Set(all).size).toBe(6);
    const { tokens } = await messageState(id);
    expect(tokens).toHaveLength(6);
    // Stored as SHA-256 only: each link's hash is there, no raw token is.
    const hashes = new Set(tokens.map((t) => t.tokenHash));
    for (const link of all) expect(hashes.has(hashCredential(tokenOf(link)))).toBe(true);
    expect(JSON.stringify(tokens)).not.toContain(tokenOf(all[0] as string));
    const vic = await db().user.findUniqueOrThrow({ where: { email: "vic@acme.test" } });
    expect(tokens.some((t) => t.userId === vic.id)).toBe(false);
    expect(await db().notification.count({ where: { messageId: id, userId: vic.id } })).toBe(0);
    // A week, as the item has no expires_at.
    const week = 7 * 24 * 3600_000;
    for (const t of tokens) expect(Math.abs(t.expiresAt.getTime() - t.createdAt.getTime() - week)).toBeLessThan(1000);
  });

  it("a GET of every link — as a mail scanner does — shows the choice and changes nothing", async () => {
    const { id, title } = await submit("acme", A, "ask");
    const mails = await mailsAbout(title, 3);
    const before = await messageState(id);
    for (const mail of mails.values())
      for (const [label, link] of linksOf(mail)) {
        for (let i = 0; i < 2; i++) {
          const page = await open(link);
          expect([page.status, stateOf(page.html)]).toEqual([200, "ready"]);
          expect(page.html).toContain(title);
          expect(page.html).toContain(`data-testid="email-answer-option">${label}<`);
          expect(page.html).toContain('method="post"');
          expect(page.headers.get("cache-control")).toBe("no-store");
          expect(page.headers.get("referrer-policy")).toBe("no-referrer");
          expect(page.headers.get("set-cookie")).toBeNull();
        }
        // HEAD too (link checkers use it).
        expect((await fetch(link, { method: "HEAD" })).status).toBe(200);
      }
    const after = await messageState(id);
    expect(after.row.status).toBe("open");
    expect(after.row.resolution).toBeNull();
    expect(after.tokens.every((t) => t.usedAt === null)).toBe(true);
    expect(after.audit.map((a) => a.event)).toEqual(before.audit.map((a) => a.event));
    expect(await db().webSession.count()).toBe(0);
  });
});

describe("answering", () => {
  it("the POST resolves as that person, audited as by email; the agent's Response verifies; reuse and the other links are refused", async () => {
    const sent = await submitPush(hub.url, hub.account("acme").keys[A] as string, A, `${hub.receiver.origin}/cb/ea`, {
      scheme: "hmac",
      secret_ref: "cb",
    });
    const row = await db().message.findUniqueOrThrow({ where: { id: sent.id } });
    const mails = await mailsAbout(row.title, 3);
    const hold = linksOf(mails.get("mia@acme.test")).get("Hold") as string;

    const done = await confirm(hold);
    expect([done.status, stateOf(done.html)]).toEqual([200, "answered"]);
    expect(done.headers.get("cache-control")).toBe("no-store");
    expect(done.headers.get("referrer-policy")).toBe("no-referrer");

    const s = await messageState(sent.id);
    expect(s.row.status).toBe("answered");
    expect(s.row.resolution?.actor).toBe("human:mia");
    const answered = s.audit.find((a) => a.event === "message.answered");
    expect(answered?.actor).toBe("human:mia");
    expect(answered?.detail).toMatchObject({ via: "resolve", channel: "email" });
    // Spent in the same transaction: exactly this link, at the resolution's time.
    const used = s.tokens.filter((t) => t.usedAt !== null);
    expect(used.map((t) => t.tokenHash)).toEqual([hashCredential(tokenOf(hold))]);
    expect(used[0]?.usedAt?.getTime()).toBe(s.row.resolution?.resolvedAt.getTime());

    // The agent receives the normal signed Response (§9.2), and a pull returns the same one.
    const [got] = await hub.receiver.waitFor("/cb/ea", 1, 20_000);
    if (!got) throw new Error("no push");
    const verdict = await new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [SECRET] }).verify(
      got.headers,
      got.body,
      got.at / 1000,
    );
    if (!verdict.ok) throw new Error(`push did not verify: ${verdict.reason}`);
    expect(verdict.body.response).toMatchObject({ value: "hold", actor: "human:mia", edited: false });
    const pulled = await hub.agent(A, "acme").get(`/v1/messages/${sent.id}`);
    expect(pulled.body.response).toEqual(verdict.body);

    // The link is the credential: no process logged it.
    expect(`${hub.web.output()}${hub.worker.output()}`).not.toContain(tokenOf(hold));

    // Reused: refused, as GET and as POST.
    for (const r of [await open(hold), await confirm(hold)]) expect([r.status, stateOf(r.html)]).toEqual([410, "used"]);
    // Anyone's other link of the settled item: refused, and stays unspent.
    const ship = linksOf(mails.get("olga@acme.test")).get("Ship") as string;
    const late = await confirm(ship);
    expect([late.status, stateOf(late.html)]).toEqual([409, "closed"]);
    expect(late.html).not.toContain(row.title);
    const again = await messageState(sent.id);
    expect(again.row.resolution?.id).toBe(s.row.resolution?.id);
    expect(again.tokens.filter((t) => t.usedAt !== null)).toHaveLength(1);
    expect(again.audit.filter((a) => a.event.startsWith("message.") && a.event !== "message.submitted")).toHaveLength(
      1,
    );
  });

  it("a link answers only its own item; garbage and unknown tokens get one indistinguishable refusal", async () => {
    const confirmAsk = { mode: "confirm", allowed_resolvers: ["human:mia"] };
    const x = await submit("acme", A, "ask", { request: confirmAsk });
    const y = await submit("acme", A, "ask", { request: confirmAsk });
    const yLinks = linksOf((await mailsAbout(y.title, 1)).get("mia@acme.test"));
    expect([...yLinks.keys()]).toEqual(["Approve", "Deny"]); // confirm's synthesized options (§5.2)
    await mailsAbout(x.title, 1);
    expect(stateOf((await confirm(yLinks.get("Approve") as string)).html)).toBe("answered");
    expect((await messageState(y.id)).row.resolution?.response).toContain('"value":"approve"');
    expect((await messageState(x.id)).row.status).toBe("open");

    const approve = yLinks.get("Approve") as string;
    const flipped = `${approve.slice(0, -1)}${approve.endsWith("A") ? "B" : "A"}`;
    const pages = [];
    for (const bad of [
      `${hub.url}/e/garbage`,
      `${hub.url}/e/${"A".repeat(43)}`,
      flipped,
      `${hub.url}/e/${tokenOf(approve)}x`,
    ]) {
      for (const r of [await open(bad), await confirm(bad)]) {
        expect([r.status, stateOf(r.html)]).toEqual([404, "invalid"]);
        pages.push(r.html.replace(/\/e\/[^"]*/g, ""));
      }
    }
    expect(new Set(pages).size).toBe(1);
    expect((await messageState(x.id)).row.status).toBe("open");
  });

  it("concurrent POSTs answer once: a double-click gets 'used', a rival option 'closed'", async () => {
    const { id, title } = await submit("acme", A, "ask", {
      request: { mode: "confirm", allowed_resolvers: ["human:adam"] },
    });
    const links = linksOf((await mailsAbout(title, 1)).get("adam@acme.test"));
    const approve = links.get("Approve") as string;
    const deny = links.get("Deny") as string;
    const pages = await Promise.all([confirm(approve), confirm(approve), confirm(deny)]);
    const states = pages.map((p) => stateOf(p.html));
    const s = await messageState(id);
    expect(s.row.status).toBe("answered");
    expect(s.tokens.filter((t) => t.usedAt !== null)).toHaveLength(1);
    expect(s.audit.filter((a) => a.event === "message.answered")).toHaveLength(1);
    expect(states.filter((k) => k === "answered")).toHaveLength(1);
    if (s.row.resolution?.response?.includes('"approve"'))
      expect(states).toEqual(expect.arrayContaining(["used", "closed"]));
    else expect(states).toEqual(["closed", "closed", "answered"]);
  });

  it("an expired link is refused and changes nothing; a short-lived item's links expire with it", async () => {
    const expiresAt = new Date(Date.now() + 3600_000);
    const { id, title } = await submit("acme", A, "ask", {
      request: { mode: "confirm", allowed_resolvers: ["human:adam"] },
      expires_at: expiresAt.toISOString(),
    });
    const links = linksOf((await mailsAbout(title, 1)).get("adam@acme.test"));
    const { tokens } = await messageState(id);
    for (const t of tokens) expect(t.expiresAt.getTime()).toBe(new Date(expiresAt.toISOString()).getTime());

    const deny = links.get("Deny") as string;
    await db().emailAnswerToken.update({
      where: { tokenHash: hashCredential(tokenOf(deny)) },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    for (const r of [await open(deny), await confirm(deny)])
      expect([r.status, stateOf(r.html)]).toEqual([410, "expired"]);
    const after = await messageState(id);
    expect(after.row.status).toBe("open");
    expect(after.tokens.every((t) => t.usedAt === null)).toBe(true);
  });

  it("a person whose seat was removed, or narrowed to viewer, since the mail is refused", async () => {
    const { id, title } = await submit("gone", "bot/gone", "ask");
    const mails = await mailsAbout(title, 2);
    const rita = linksOf(mails.get("rita@gone.test")).get("Ship") as string;
    const owen = linksOf(mails.get("owen@gone.test")).get("Hold") as string;
    await db().membership.deleteMany({ where: { handle: "rita", account: { slug: "gone" } } });
    await db().membership.updateMany({
      where: { handle: "owen", account: { slug: "gone" } },
      data: { role: "viewer" },
    });
    for (const link of [rita, owen])
      for (const r of [await open(link), await confirm(link)]) {
        expect([r.status, stateOf(r.html)]).toEqual([403, "refused"]);
        expect(r.html).not.toContain(title);
      }
    const after = await messageState(id);
    expect(after.row.status).toBe("open");
    expect(after.tokens.every((t) => t.usedAt === null)).toBe(true);
  });

  it("a POST from another site is refused", async () => {
    const { id, title } = await submit("acme", A, "ask", {
      request: { mode: "confirm", allowed_resolvers: ["human:olga"] },
    });
    const link = linksOf((await mailsAbout(title, 1)).get("olga@acme.test")).get("Approve") as string;
    const crossSite: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" },
      { origin: "null", "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example", "sec-fetch-site": "same-origin" },
    ];
    for (const headers of crossSite) {
      const r = await confirm(link, headers);
      expect([r.status, stateOf(r.html)]).toEqual([403, "cross_site"]);
    }
    expect((await messageState(id)).row.status).toBe("open");
  });
});

describe("with the account's setting off (strict)", () => {
  it("the link asks for a sign-in first; another person's session is refused; the person's own session answers", async () => {
    const { id, title } = await submit("strict", "bot/strict", "ask");
    const mails = await mailsAbout(title, 2);
    const link = linksOf(mails.get("sol@strict.test")).get("Ship") as string;

    const page = await open(link);
    expect([page.status, stateOf(page.html)]).toEqual([403, "sign_in"]);
    expect(page.html).toContain(`/signin?callbackUrl=${encodeURIComponent(`/e/${tokenOf(link)}`)}`);
    expect(page.html).not.toContain('method="post"');
    const noSession = await confirm(link);
    expect([noSession.status, stateOf(noSession.html)]).toEqual([403, "sign_in"]);

    const tom = await sessionCookie("tom", "strict");
    for (const r of [await open(link, tom), await confirm(link, { cookie: tom })])
      expect([r.status, stateOf(r.html)]).toEqual([403, "other_person"]);
    let s = await messageState(id);
    expect(s.row.status).toBe("open");
    expect(s.tokens.every((t) => t.usedAt === null)).toBe(true);

    const sol = await sessionCookie("sol", "strict");
    expect(stateOf((await open(link, sol)).html)).toBe("ready");
    const done = await confirm(link, { cookie: sol });
    expect([done.status, stateOf(done.html)]).toEqual([200, "answered"]);
    s = await messageState(id);
    expect([s.row.status, s.row.resolution?.actor]).toEqual(["answered", "human:sol"]);
  });
});

describe("high/urgent and restricted asks (the default)", () => {
  it("need a sign-in to answer from the mail; an ordinary ask does not; an owner relaxes it, audited", async () => {
    const high = await submit("careful", "bot/careful", "ask", { priority: "high" });
    const named = await submit("careful", "bot/careful", "ask", {
      request: { mode: "confirm", allowed_resolvers: ["human:max"] },
    });
    const plain = await submit("careful", "bot/careful", "ask", { priority: "normal" });
    const highLink = linksOf((await mailsAbout(high.title, 2)).get("max@careful.test")).get("Ship") as string;
    const namedLink = linksOf((await mailsAbout(named.title, 1)).get("max@careful.test")).get("Approve") as string;
    const plainLink = linksOf((await mailsAbout(plain.title, 2)).get("max@careful.test")).get("Ship") as string;

    for (const link of [highLink, namedLink]) {
      const shown = await open(link);
      expect([shown.status, stateOf(shown.html)]).toEqual([403, "sign_in"]);
      expect(shown.html).toContain("high priority, or names who may answer it");
      expect(shown.html).not.toContain('method="post"');
      const posted = await confirm(link);
      expect([posted.status, stateOf(posted.html)]).toEqual([403, "sign_in"]);
    }
    expect(stateOf((await open(plainLink)).html)).toBe("ready");
    for (const m of [high, named]) expect((await messageState(m.id)).row.status).toBe("open");

    // max's own session answers the restricted one.
    const max = await sessionCookie("max", "careful");
    const done = await confirm(namedLink, { cookie: max });
    expect([done.status, stateOf(done.html)]).toEqual([200, "answered"]);
    expect((await messageState(named.id)).row.resolution?.actor).toBe("human:max");

    // Only an owner relaxes it; then the link alone answers the high one; audited.
    const careful = await db().account.findUniqueOrThrow({ where: { slug: "careful" } });
    const asMax = { accountId: careful.id, role: "member" as const, actor: "human:max" };
    await expect(setEmailAnswerSensitiveWithoutSignIn(asMax, true)).rejects.toMatchObject({ code: "not_authorized" });
    expect(stateOf((await open(highLink)).html)).toBe("sign_in");
    const asCora = { accountId: careful.id, role: "owner" as const, actor: "human:cora" };
    expect(await setEmailAnswerSensitiveWithoutSignIn(asCora, true)).toEqual({ changed: true });
    const relaxed = await confirm(highLink);
    expect([relaxed.status, stateOf(relaxed.html)]).toEqual([200, "answered"]);
    const audit = await db().auditEvent.findMany({
      where: { accountId: careful.id, event: "notification.email_answer_changed" },
    });
    expect(audit.map((a) => [a.actor, a.detail])).toEqual([["human:cora", { sensitive: true, enabled: true }]]);
  });
});

describe("items that get no answer links", () => {
  it("a sensitive ask: no body, context, option text or answer link in the mail, and no token stored", async () => {
    const { id, title } = await submit("acme", A, "ask", {
      sensitive: true,
      body: "SECRET-BODY-MARKER",
      context: [{ kind: "text", text: "SECRET-CONTEXT-MARKER" }],
      request: {
        mode: "select",
        options: [
          { value: "a", label: "SECRET-LABEL-A", description: "SECRET-DESC-A" },
          { value: "b", label: "SECRET-LABEL-B" },
        ],
        allowed_resolvers: ["human:olga"],
      },
    });
    const m = (await mailsAbout(title, 1)).get("olga@acme.test") as ParsedMail;
    const all = `${m.text}\n${m.html}`;
    for (const secret of ["SECRET-BODY-MARKER", "SECRET-CONTEXT-MARKER", "SECRET-DESC-A", "SECRET-LABEL"])
      expect(all).not.toContain(secret);
    expect(all).not.toContain("/e/");
    expect(m.text).toContain(`/inbox/${id}`);
    expect((await messageState(id)).tokens).toEqual([]);
  });

  it("an input ask and a task: the item's link only", async () => {
    const input = await submit("acme", A, "ask", {
      request: {
        mode: "input",
        schema: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
        allowed_resolvers: ["human:olga"],
      },
    });
    const task = await submit("acme", A, "task", {
      action: { instructions: "Rotate **the** key", allowed_resolvers: ["human:olga"] },
    });
    for (const { id, title } of [input, task]) {
      const m = (await mailsAbout(title, 1)).get("olga@acme.test") as ParsedMail;
      expect(`${m.text}${m.html}`).not.toContain("/e/");
      expect((await messageState(id)).tokens).toEqual([]);
    }
    const t = (await mailsAbout(task.title, 1)).get("olga@acme.test") as ParsedMail;
    expect(String(t.html)).toContain("Rotate <strong>the</strong> key"); // instructions through the Markdown pipeline
    expect(t.text).toContain("Rotate **the** key"); // the text part stays plain
  });
});
