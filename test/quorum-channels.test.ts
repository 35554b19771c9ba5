/**
 * Quorum approvals through the notification channels (docs/policies.md "Quorum", docs/notifications.md),
 * in this process on a pinned Hub clock: the lib verbs submit, fan out and send
 * (`processNotifications`) to a real SMTP server, the real Slack client against a local
 * Slack-compatible server (test/support/slack-fake.ts) and a local push service. An email link's
 * vote that does not complete the quorum leaves the item open and its page says "1 of 2 — your
 * approval is recorded" (the person's other links then point to the item page), a refusal names the
 * rule and reason, the completing link answers; a signed Slack click records a vote with an
 * ephemeral "recorded (1 of 2)" and every post of the item shows the approvals line — after a vote
 * by mail too — a sponsor's click is refused naming why, the completing click settles every post;
 * the agent's sponsor is sent no answer link, button or push for the item on any channel (nor is
 * someone made a sponsor after submit), and nobody whose vote is in is reminded.
 */
// covers: lib/notifications/email-answer.ts, lib/notifications/slack/interactions.ts, lib/notifications/slack/posts.ts, lib/notifications/send.ts, lib/notifications/recipients.ts, app/e/[token]/view.ts
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renderPage } from "../app/e/[token]/view";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { submitMessage } from "../lib/messages/submit";
import { answerByLink, inspectAnswerLink, type LinkState } from "../lib/notifications/email-answer";
import { processNotifications } from "../lib/notifications/fanout";
import { handleInteraction } from "../lib/notifications/slack/interactions";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { changeSponsors } from "../lib/principals/sponsors";
import type { AgentPrincipal } from "../lib/principals/types";
import { type EveryChannel, reachEveryChannel, slackUser } from "./support/every-channel";
import { useHubFixture } from "./support/hub-fixture";
import { answerLinks } from "./support/mail-capture";
import { envelope } from "./support/provision";
import { answerButtons, postText, signSlack, type SlackPostRecord, type Workspace } from "./support/slack-fake";

const DEPLOY = "deploybot/prod";
/** sam is an admin and the deploy bot's sponsor: asked by the rule's list, excluded as its sponsor. */
const PEOPLE = ["olga", "sam", "alice", "bob", "carol", "dan", "erin"] as const;
const SLACK: Workspace = { token: "xoxb-acme-q", teamId: "TACMEQ", teamName: "Acme Slack", botUserId: "UBOT" };
const SECRET = "acmequorumsecret0123456789abcdefg";
const CHANNEL = "CQUORUM1";
const OWNER = { actor: "human:olga", role: "owner" } as const;

let channels: EveryChannel;
let accountId = "";
let deployRowId = "";

const userId = async (handle: string) =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;

const hub = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: [DEPLOY],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "sam", role: "admin" },
        { handle: "alice", role: "member" },
        { handle: "bob", role: "member" },
        { handle: "carol", role: "member" },
        { handle: "dan", role: "member" },
        { handle: "erin", role: "member" },
      ],
    },
  },
  setup: async () => {
    // Everyone reachable on every channel: what reaches whom, and with which answers, is the policy's doing.
    channels = await reachEveryChannel({
      slug: "acme",
      owner: "olga",
      people: PEOPLE,
      workspace: SLACK,
      signingSecret: SECRET,
      channelId: CHANNEL,
    });
    const account = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    await applyPolicy(
      account.id,
      PolicyFileSchema.parse({
        version: 1,
        groups: { sre: ["human:alice", "human:bob"] },
        rules: [
          {
            name: "prod-deploys",
            match: { agent: "deploybot/*", mode: "confirm" },
            assign: ["group:sre", "human:carol", "human:dan", "human:erin", "human:sam"],
            approvals: 2,
            require_from: "sre",
            exclude_sponsors: true,
          },
        ],
      }),
      OWNER,
    );
    const agent = await db().agent.findFirstOrThrow({
      where: { accountId: account.id, agentId: DEPLOY },
      select: { id: true },
    });
    await changeSponsors(account.id, agent.id, { set: ["human:sam"] }, OWNER);
  },
});

const T0 = new Date("2031-06-01T10:00:00.000Z");
const clock = fixedClock(T0);
const MIN = 60_000;
let deploybot: AgentPrincipal;

beforeAll(async () => {
  deploybot = requireAgent(
    await authenticate(new Headers({ authorization: `Bearer ${hub.account("acme").keys[DEPLOY]}` })),
  );
  accountId = deploybot.accountId;
  deployRowId = deploybot.agentRowId;
});
beforeEach(() => {
  clock.set(T0);
  setClock(clock);
});
afterAll(async () => {
  setClock(null);
  await channels.close();
});

let n = 0;
/** Submits a confirm ask at T0 and runs its notification job once (the new-item notifications go out). */
async function submit() {
  clock.set(T0);
  const title = `quorum item ${++n}`;
  const before = channels.pushes.length;
  const { ack } = await submitMessage(deploybot, envelope("ask", DEPLOY, { title, request: { mode: "confirm" } }));
  await processNotifications(ack.id);
  return {
    id: ack.id,
    title,
    pushed: () =>
      channels.pushes
        .slice(before)
        .map((p) => p.replace("/push/", ""))
        .sort(),
  };
}

async function runAt(id: string, ms: number): Promise<void> {
  clock.set(new Date(T0.getTime() + ms));
  await processNotifications(id);
}

/** Each mail about the item whose subject starts with `prefix` (`[` a new item's), by recipient handle. */
function mails(title: string, prefix: string): Map<string, ParsedMail> {
  const out = new Map<string, ParsedMail>();
  for (const r of channels.capture.received) {
    const subject = r.mail.subject ?? "";
    if (subject.startsWith(prefix) && subject.endsWith(` ${title}`)) out.set(r.to.replace("@acme.test", ""), r.mail);
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}
const whole = (m: ParsedMail | undefined) => `${m?.text ?? ""}${m?.html || ""}`;

/** The token of the person's one-click link for `label` in the item's new-item mail. */
function linkToken(title: string, handle: string, label: "Approve" | "Deny"): string {
  const url = answerLinks(mails(title, "[").get(handle) as ParsedMail).get(label) as string;
  return url.split("/e/")[1] as string;
}

/** The Slack posts about the item: the channel post and the DMs, by recipient handle. */
function posts(title: string): { channel: SlackPostRecord; dms: Map<string, SlackPostRecord[]> } {
  const mine = channels.slack.posts.filter((p) => p.text.endsWith(title));
  const dms = new Map<string, SlackPostRecord[]>();
  for (const p of mine.filter((p) => p.channel.startsWith("D"))) {
    const who = p.channel.slice(1).toLowerCase();
    dms.set(who, [...(dms.get(who) ?? []), p]);
  }
  return { channel: mine.find((p) => p.channel === CHANNEL) as SlackPostRecord, dms };
}

/** Slack's side of a click on an answer button, signed with the account's secret, handled in-process. */
function click(handle: string, value: string) {
  const payload = {
    type: "block_actions",
    team: { id: SLACK.teamId, domain: "acme" },
    user: { id: slackUser(handle), username: handle },
    channel: { id: CHANNEL },
    actions: [{ type: "button", action_id: "ma2h_answer_0", value }],
  };
  const rawBody = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(Math.floor(clock.now().getTime() / 1000));
  return handleInteraction("acme", { timestamp, signature: signSlack(SECRET, timestamp, rawBody), rawBody });
}
/** The last ephemeral message the person was shown. */
const saidTo = (handle: string) =>
  String(
    channels.slack.calls.filter((c) => c.method === "chat.postEphemeral" && c.args.user === slackUser(handle)).at(-1)
      ?.args.text,
  );

const status = async (id: string) => db().message.findUniqueOrThrow({ where: { id }, include: { resolution: true } });
/** The page `GET`/`POST /e/{token}` renders for the state. */
const page = (state: LinkState) => renderPage(state, "t");

describe("quorum through the notification channels", () => {
  it("sponsor exclusion: no mail, DM, push or answer link for the sponsor; the escalation reaches them with none", async () => {
    const { id, title, pushed } = await submit();
    const asked = ["alice", "bob", "carol", "dan", "erin"];
    expect([...mails(title, "[").keys()]).toEqual(asked);
    for (const handle of asked) {
      const mail = whole(mails(title, "[").get(handle));
      expect(mail).toContain(
        "The account's approval policy (rule prod-deploys) asks: alice, bob, carol, dan, erin. It needs 2 approvals of the same answer, one of them from sre.",
      );
      expect([...answerLinks(mails(title, "[").get(handle) as ParsedMail).keys()]).toEqual(["Approve", "Deny"]);
    }
    expect([...posts(title).dms.keys()].sort()).toEqual(asked);
    expect(pushed()).toEqual(asked);
    const sam = await userId("sam");
    // sam has no row but the escalation's, due later (an admin, told only that the item is stuck).
    const samRows = () =>
      db().notification.findMany({ where: { messageId: id, userId: sam }, select: { kind: true, status: true } });
    expect(new Set((await samRows()).map((r) => `${r.kind} ${r.status}`))).toEqual(new Set(["escalation pending"]));
    expect(await db().emailAnswerToken.count({ where: { messageId: id, userId: sam } })).toBe(0);
    // The channel post, one for every reader, names who is asked and what the quorum needs.
    expect(postText(posts(title).channel)).toContain(
      "Asked by the approval policy (rule prod-deploys): alice, bob, carol, dan, erin. It needs 2 approvals of the same answer, one of them from sre.",
    );
    expect(postText(posts(title).channel)).toContain("0 of 2 approvals");

    // The escalation (normal priority: after 8 h) goes to the owner and the admin — sam included —
    // with no answer for either: no link, no button; the reminder (after 4 h) never to sam.
    await runAt(id, 240 * MIN);
    expect([...mails(title, "Reminder: ").keys()]).toEqual(asked);
    await runAt(id, 480 * MIN);
    const escalation = mails(title, "Escalation: ");
    expect([...escalation.keys()]).toEqual(["olga", "sam"]);
    expect(whole(escalation.get("sam"))).not.toContain("/e/");
    const samDm = posts(title).dms.get("sam") ?? [];
    expect(samDm).toHaveLength(1);
    expect(postText(samDm[0] as SlackPostRecord)).toContain("Escalation");
    expect(answerButtons(samDm[0] as SlackPostRecord).size).toBe(0);
    expect(await db().emailAnswerToken.count({ where: { messageId: id, userId: sam } })).toBe(0);
    expect(new Set((await samRows()).map((r) => `${r.kind} ${r.status}`))).toEqual(new Set(["escalation sent"]));
  });

  it("someone made a sponsor after submit is no longer reminded; nobody whose vote is in is reminded", async () => {
    const { id, title } = await submit();
    // carol votes (by her mail's link); then dan becomes a sponsor of the deploy bot.
    expect((await answerByLink(linkToken(title, "carol", "Approve"), null)).kind).toBe("recorded");
    await changeSponsors(accountId, deployRowId, { set: ["human:sam", "human:dan"] }, OWNER);
    try {
      await runAt(id, 240 * MIN);
      expect([...mails(title, "Reminder: ").keys()]).toEqual(["alice", "bob", "erin"]);
      const cancelled = await db().notification.findMany({
        where: { messageId: id, kind: "reminder", status: "cancelled" },
        select: { lastErrorClass: true, user: { select: { email: true } } },
      });
      const why = Object.fromEntries(cancelled.map((c) => [c.user.email, c.lastErrorClass]));
      expect(why).toMatchObject({ "carol@acme.test": "voted", "dan@acme.test": "not_resolver" });
      // dan's link from the first mail is refused now, naming why.
      const refused = await answerByLink(linkToken(title, "dan", "Approve"), null);
      expect(refused).toEqual({
        kind: "refused",
        reason: "the account's approval policy (rule prod-deploys) does not ask you: sponsor of this agent",
      });
      expect(page(refused)).toContain("sponsor of this agent");
    } finally {
      await changeSponsors(accountId, deployRowId, { set: ["human:sam"] }, OWNER);
    }
  });

  it("email: carol's link records 1 of 2; her other link points to the item page; a refusal names its reason; alice's completes", async () => {
    const { id, title } = await submit();
    const carol = linkToken(title, "carol", "Approve");
    expect((await inspectAnswerLink(carol, null)).kind).toBe("ready");
    expect(page(await inspectAnswerLink(carol, null))).toContain("This item needs 2 approvals of the same answer");
    const recorded = await answerByLink(carol, null);
    expect(recorded).toMatchObject({ kind: "recorded", approvals: { have: 1, need: 2 } });
    const html = page(recorded);
    expect(html).toContain("1 of 2 — your approval is recorded.");
    expect(html).toContain(`Changing or withdrawing your answer happens on <a href="/inbox/${id}">`);
    expect((await status(id)).status).toBe("open");
    const audit = await db().auditEvent.findFirstOrThrow({ where: { messageId: id, event: "approval.recorded" } });
    expect([audit.actor, audit.detail]).toEqual(["human:carol", { answer: "approve", channel: "email" }]);
    // The same link again: spent. Her Deny link: a link gives a first answer only.
    expect((await answerByLink(carol, null)).kind).toBe("used");
    const deny = linkToken(title, "carol", "Deny");
    const voted = await answerByLink(deny, null);
    expect(voted).toMatchObject({ kind: "voted", answer: "Approve" });
    expect(page(voted)).toContain("Changing or withdrawing your answer happens on");
    // Refused without spending: her Deny link is still unused, and her vote is still Approve.
    expect(
      await db().emailAnswerToken.count({
        // Her mail's links (her push's buttons are tokens of the same table: test/push-answer.test.ts).
        where: { messageId: id, usedAt: null, userId: await userId("carol"), notification: { channel: "email" } },
      }),
    ).toBe(1);
    expect(
      await db().approvalVote.findMany({ where: { messageId: id }, select: { handle: true, value: true } }),
    ).toEqual([{ handle: "carol", value: JSON.stringify("approve") }]);

    // The Slack posts of the item show the vote by mail once the job runs (the vote wakes it).
    await processNotifications(id);
    expect(postText(posts(title).channel)).toContain("1 of 2 approvals — carol: approve");
    expect(postText((posts(title).dms.get("alice") ?? [])[0] as SlackPostRecord)).toContain(
      "1 of 2 approvals — carol: approve",
    );

    // dan: two approvals, none from sre — still open; erin's would change nothing, refused naming the group.
    const dan = await answerByLink(linkToken(title, "dan", "Approve"), null);
    expect(dan).toMatchObject({ kind: "recorded", approvals: { have: 2, need: 2 } });
    expect(page(dan)).toContain("2 of 2 — your approval is recorded.");
    expect(page(dan)).toContain("It still needs an approval from a group the policy requires");
    const erin = await answerByLink(linkToken(title, "erin", "Approve"), null);
    expect(erin).toMatchObject({ kind: "refused" });
    expect((erin as { reason: string }).reason).toMatch(/not in group sre$/);
    expect(page(erin)).toContain("not in group sre");
    expect(await db().emailAnswerToken.count({ where: { messageId: id, usedAt: { not: null } } })).toBe(2);

    // alice (sre) completes: answered, her the actor, by email.
    const done = await answerByLink(linkToken(title, "alice", "Approve"), null);
    expect(done.kind).toBe("answered");
    const row = await status(id);
    expect([row.status, row.resolution?.actor]).toEqual(["answered", "human:alice"]);
    // bob's link now: the item is closed.
    expect((await inspectAnswerLink(linkToken(title, "bob", "Approve"), null)).kind).toBe("closed");
  });

  it("Slack: a click records the vote (ephemeral 1 of 2, every post updated); the sponsor and a needless approval are refused; the completing click settles", async () => {
    const { id, title } = await submit();
    const { channel } = posts(title);
    const approve = answerButtons(channel).get("Approve") as string;
    expect(await click("carol", approve)).toBe("recorded");
    expect(saidTo("carol")).toContain("Your approval is recorded (1 of 2)");
    expect(saidTo("carol")).toContain(`/inbox/${id}`);
    expect((await status(id)).status).toBe("open");
    const line = "1 of 2 approvals — carol: approve";
    expect(postText(channel)).toContain(line);
    expect([...answerButtons(channel).keys()]).toEqual(["Approve", "Deny"]);
    // Each DM shows it too, its buttons kept for the person it was sent to.
    for (const handle of ["alice", "bob", "carol", "dan", "erin"]) {
      const dm = (posts(title).dms.get(handle) ?? [])[0] as SlackPostRecord;
      expect(postText(dm)).toContain(line);
      expect([...answerButtons(dm).keys()]).toEqual(["Approve", "Deny"]);
    }
    const audit = await db().auditEvent.findFirstOrThrow({ where: { messageId: id, event: "approval.recorded" } });
    expect(audit.detail).toEqual({ answer: "approve", channel: "slack" });
    // The same click again: the same answer, nothing new, no update.
    const updates = channel.updates;
    expect(await click("carol", approve)).toBe("recorded");
    expect(channel.updates).toBe(updates);

    // The sponsor clicks the channel post's button: refused, naming why; nothing changed.
    expect(await click("sam", approve)).toBe("refused");
    expect(saidTo("sam")).toContain("sponsor of this agent");
    // dan: 2 of 2 but none from sre; erin's approval could change nothing — refused, naming the group.
    expect(await click("dan", approve)).toBe("recorded");
    expect(saidTo("dan")).toContain("Your approval is recorded (2 of 2)");
    expect(postText(channel)).toContain("2 of 2 approvals — carol: approve; dan: approve");
    expect(await click("erin", approve)).toBe("refused");
    expect(saidTo("erin")).toMatch(/not in group sre\)\. Nothing was changed\./);
    expect((await status(id)).status).toBe("open");

    // bob (sre) completes: answered, every post settled with him the decider, no buttons left.
    expect(await click("bob", approve)).toBe("answered");
    const row = await status(id);
    expect([row.status, row.resolution?.actor]).toEqual(["answered", "human:bob"]);
    expect(postText(channel)).toContain("by human:bob via slack");
    expect(answerButtons(channel).size).toBe(0);
    expect(postText((posts(title).dms.get("alice") ?? [])[0] as SlackPostRecord)).toContain("by human:bob via slack");
    expect(await click("alice", approve)).toBe("already_decided");
  });
});
