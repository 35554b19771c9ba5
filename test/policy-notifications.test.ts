/**
 * Notifications follow the approval policy (docs/policies.md, docs/decisions/approval-policies.md),
 * in this process on a pinned Hub clock: the lib verbs submit, fan out and send
 * (`processNotifications`) to a real SMTP server (`smtp-server`, read with `mailparser`), the real
 * Slack client against a local Slack-compatible server (test/support/slack-fake.ts) and a local push
 * service receiving real encrypted Web Push requests. A routed ask is mailed, DMed and pushed to the
 * people its rules left eligible only — its reminder too — while an unrouted one reaches every
 * resolver; under `email_answers: false` its new-item and reminder mails carry no one-click answer
 * link, only the item's page; its escalation still goes to the owners and admins, naming who is asked,
 * with no answer for them (and a link minted for such an ask anyway is refused); the account's Slack
 * channel post names who is asked and a click by anyone else is refused and changes nothing.
 */
// covers: lib/notifications/email-channel.ts, lib/notifications/send.ts, lib/notifications/recipients.ts, lib/notifications/slack/item-view.ts, lib/notifications/email-answer.ts
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { submitMessage } from "../lib/messages/submit";
import { envelopeOf } from "../lib/messages/record";
import { mintAnswerLinks } from "../lib/notifications/answer-tokens";
import { answerByLink, inspectAnswerLink } from "../lib/notifications/email-answer";
import { processNotifications } from "../lib/notifications/fanout";
import { handleInteraction } from "../lib/notifications/slack/interactions";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
import { type EveryChannel, reachEveryChannel, slackUser } from "./support/every-channel";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { answerButtons, postText, signSlack, type Workspace } from "./support/slack-fake";

const DEPLOY = "deploybot/prod";
const LINT = "lintbot";
const PEOPLE = ["olga", "adam", "alice", "bob", "carol"] as const;
const SLACK: Workspace = { token: "xoxb-acme-1", teamId: "TACME", teamName: "Acme Slack", botUserId: "UBOT" };
const SECRET = "acmesigningsecret0123456789abcdef";
const CHANNEL = "CPOLICY1";

let channels: EveryChannel;

const _userId = async (handle: string) =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;

const hub = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: [DEPLOY, LINT],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "adam", role: "admin" },
        { handle: "alice", role: "member" },
        { handle: "bob", role: "member" },
        { handle: "carol", role: "member" },
        { handle: "vic", role: "viewer" },
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
            match: { agent: "deploybot/*", verb: "ask" },
            assign: ["group:sre"],
            email_answers: false,
          },
          { name: "lint-prod", match: { agent: LINT, tags_any: ["prod"] }, assign: ["human:alice", "human:carol"] },
        ],
      }),
      { actor: "human:olga", role: "owner" },
    );
  },
});

const T0 = new Date("2031-05-01T10:00:00.000Z");
const clock = fixedClock(T0);
const MIN = 60_000;
const agents: Record<string, AgentPrincipal> = {};

beforeAll(async () => {
  for (const id of [DEPLOY, LINT])
    agents[id] = requireAgent(
      await authenticate(new Headers({ authorization: `Bearer ${hub.account("acme").keys[id]}` })),
    );
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
async function submit(agent: string, over: Record<string, unknown> = {}) {
  clock.set(T0);
  const title = `policy item ${++n}`;
  const before = channels.pushes.length;
  const { ack } = await submitMessage(
    agents[agent] as AgentPrincipal,
    envelope("ask", agent, { title, request: { mode: "confirm" }, ...over }),
  );
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

/** The pinned clock at T0 + `ms`, and the item's job run then, as its delayed wake-up would. */
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

/** The handles each channel's notification rows of one kind were sent to. */
async function sentTo(messageId: string, kind: string): Promise<Record<string, string[]>> {
  const rows = await db().notification.findMany({
    where: { messageId, kind, status: "sent" },
    select: { channel: true, user: { select: { email: true } } },
  });
  const out: Record<string, string[]> = {};
  for (const r of rows) out[r.channel] = [...(out[r.channel] ?? []), r.user.email.replace("@acme.test", "")];
  for (const list of Object.values(out)) list.sort();
  return out;
}

/** The Slack DMs about the item, by recipient handle. */
function directMessages(title: string) {
  return new Map(
    channels.slack.posts
      .filter((p) => p.channel.startsWith("D") && p.text.endsWith(title))
      .map((p) => [p.channel.slice(1).toLowerCase(), p] as const),
  );
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

describe("notifications of a routed ask", () => {
  it("reach only the people its rules left eligible — mail, Slack DM and push — an unrouted ask every resolver", async () => {
    const routed = await submit(DEPLOY);
    const everyone = ["adam", "alice", "bob", "carol", "olga"];
    expect([...mails(routed.title, "[").keys()]).toEqual(["alice", "bob"]);
    expect(await sentTo(routed.id, "new")).toEqual({
      email: ["alice", "bob"],
      push: ["alice", "bob"],
      slack: ["alice", "bob"],
    });
    expect([...directMessages(routed.title).keys()].sort()).toEqual(["alice", "bob"]);
    expect(routed.pushed()).toEqual(["alice", "bob"]);

    const unrouted = await submit(LINT);
    expect([...mails(unrouted.title, "[").keys()]).toEqual(everyone);
    expect(await sentTo(unrouted.id, "new")).toEqual({ email: everyone, push: everyone, slack: everyone });
    expect(unrouted.pushed()).toEqual(everyone);

    // Another rule, other people: the lint bot's prod asks go to alice and carol only.
    const lintProd = await submit(LINT, { tags: ["prod"] });
    expect([...mails(lintProd.title, "[").keys()]).toEqual(["alice", "carol"]);
    expect(await sentTo(lintProd.id, "new")).toEqual({
      email: ["alice", "carol"],
      push: ["alice", "carol"],
      slack: ["alice", "carol"],
    });
  });

  it("email_answers false: new-item and reminder mails link the item page only; the escalation goes to owners and admins", async () => {
    const { id, title } = await submit(DEPLOY);
    const page = `/inbox/${id}`;
    const first = mails(title, "[");
    for (const handle of ["alice", "bob"]) {
      const m = whole(first.get(handle));
      expect(m).toContain(page);
      expect(m).toContain(
        "The account's approval policy (rule prod-deploys) asks: alice, bob. It is answered in the Hub, not from mail.",
      );
      expect(m).not.toContain("/e/");
    }
    // The Slack DM keeps its buttons: a click is the bound person's own, checked like the inbox's.
    expect([...answerButtons(directMessages(title).get("alice") as never).keys()]).toEqual(["Approve", "Deny"]);

    // The reminder (normal priority: after 4 h) goes to the same two, still without answer links.
    await runAt(id, 240 * MIN);
    const reminders = mails(title, "Reminder: ");
    expect([...reminders.keys()]).toEqual(["alice", "bob"]);
    for (const m of reminders.values()) {
      expect(whole(m)).toContain(page);
      expect(whole(m)).not.toContain("/e/");
    }
    expect((await sentTo(id, "reminder")).push).toEqual(["alice", "bob"]);

    // The escalation (after 8 h) tells the owner and the admin it is stuck and whom it asks; they may
    // not answer it, so neither the mail nor the DM offers an answer.
    await runAt(id, 480 * MIN);
    const escalations = mails(title, "Escalation: ");
    expect([...escalations.keys()]).toEqual(["adam", "olga"]);
    for (const m of escalations.values()) {
      expect(whole(m)).toContain("asks: alice, bob.");
      expect(whole(m)).not.toContain("/e/");
    }
    const dm = channels.slack.posts.find(
      (p) => p.channel === "DOLGA" && postText(p).includes("Escalation") && p.text.endsWith(title),
    );
    expect(postText(dm as never)).toContain("Asked by the approval policy (rule prod-deploys): alice, bob");
    expect(answerButtons(dm as never).size).toBe(0);
    expect(await db().emailAnswerToken.count({ where: { messageId: id } })).toBe(0);
    // A link minted for it anyway (as by a Hub before the policy) answers nothing: the page refuses it.
    const row = await db().notification.findFirstOrThrow({ where: { messageId: id, channel: "email", kind: "new" } });
    const item = await db().message.findUniqueOrThrow({ where: { id } });
    const [forged] = await mintAnswerLinks(row, item, envelopeOf(item), "https://hub.test", clock.now());
    const token = (forged?.url ?? "").split("/e/")[1] as string;
    const refused = {
      kind: "refused",
      reason: "this item is answered on its page in the Hub, not from mail or a notification",
    };
    expect(await inspectAnswerLink(token, row.userId)).toEqual(refused);
    expect(await answerByLink(token, row.userId)).toEqual(refused);
    expect((await db().message.findUniqueOrThrow({ where: { id } })).status).toBe("open");

    // A rule that keeps mail answers: the eligible get one-click links, and the mail says who is asked.
    const lintProd = await submit(LINT, { tags: ["prod"] });
    const carol = whole(mails(lintProd.title, "[").get("carol"));
    expect(carol).toContain("/e/");
    expect(carol).toContain("The account's approval policy (rule lint-prod) asks: alice, carol.");
    expect(carol).not.toContain("answered in the Hub, not from mail");
  });

  it("the Slack channel post names who is asked; a click by anyone else is refused and changes nothing", async () => {
    const { id, title } = await submit(DEPLOY);
    const post = channels.slack.posts.find((p) => p.channel === CHANNEL && p.text.endsWith(title));
    expect(postText(post as never)).toContain("Asked by the approval policy (rule prod-deploys): alice, bob");
    const approve = answerButtons(post as never).get("Approve") as string;
    for (const handle of ["olga", "carol"]) {
      expect(await click(handle, approve)).toBe("refused");
      const said = channels.slack.calls.filter(
        (c) => c.method === "chat.postEphemeral" && c.args.user === slackUser(handle),
      );
      expect(String(said.at(-1)?.args.text)).toContain("the account's approval policy (prod-deploys) does not ask you");
    }
    expect(await db().message.findUniqueOrThrow({ where: { id }, select: { status: true } })).toEqual({
      status: "open",
    });
    expect(await click("bob", approve)).toBe("answered");
    const row = await db().message.findUniqueOrThrow({ where: { id }, include: { resolution: true } });
    expect(row.status).toBe("answered");
    expect(row.resolution?.actor).toBe("human:bob");
    expect(postText(post as never)).toContain("by human:bob via slack");
  });
});
