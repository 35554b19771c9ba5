/**
 * Delegation, hand-overs and escalation through the notification channels (docs/policies.md
 * "Delegation", "Reassignment", "Escalation"; docs/notifications.md), in this process on a pinned
 * Hub clock, to a real SMTP server, a local Slack-compatible server and a local push service: a
 * delegate is told of the delegator's new ask with one-click answers — without any when the ask's
 * `allowed_resolvers` does not name them; a hand-over's people get "Handed to you" on every channel;
 * an escalation's group gets "Escalation:" mail with answers, and only the words when
 * `allowed_resolvers` keeps them from answering.
 */
// covers: lib/assignment/assign.ts, lib/notifications/recipients.ts, lib/notifications/send.ts, lib/notifications/compose.ts
import type { ParsedMail } from "mailparser";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { escalateDue } from "../lib/assignment/escalate";
import { reassignMessage } from "../lib/assignment/reassign";
import { fixedClock, setClock } from "../lib/clock";
import { db } from "../lib/db";
import { setDelegation } from "../lib/delegation/store";
import { submitMessage } from "../lib/messages/submit";
import { processNotifications } from "../lib/notifications/fanout";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import type { AgentPrincipal } from "../lib/principals/types";
import { type EveryChannel, reachEveryChannel } from "./support/every-channel";
import { useHubFixture } from "./support/hub-fixture";
import { answerLinks } from "./support/mail-capture";
import { envelope } from "./support/provision";
import { postText, type Workspace } from "./support/slack-fake";

const REVIEW = "reviewbot";
const PEOPLE = ["olga", "bob", "carol", "erin", "fay"] as const;
const SLACK: Workspace = { token: "xoxb-acme-a", teamId: "TACMEA", teamName: "Acme Slack", botUserId: "UBOT" };
const SECRET = "acmeassignsecret0123456789abcdefg";
const OWNER = { actor: "human:olga", role: "owner" } as const;

let channels: EveryChannel;
let accountId = "";
const hub = useHubFixture({
  server: "none",
  accounts: {
    acme: {
      agents: [REVIEW],
      humans: [
        { handle: "olga", role: "owner" },
        ...PEOPLE.slice(1).map((handle) => ({ handle, role: "member" as const })),
      ],
    },
  },
  setup: async () => {
    channels = await reachEveryChannel({
      slug: "acme",
      owner: "olga",
      people: PEOPLE,
      workspace: SLACK,
      signingSecret: SECRET,
      channelId: "CASSIGN1",
    });
    const account = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    await applyPolicy(
      account.id,
      PolicyFileSchema.parse({
        version: 1,
        groups: { oncall: ["human:erin"], finance: ["human:fay"] },
        rules: [
          {
            name: "reviews",
            match: { agent: REVIEW },
            assign: ["human:bob"],
            escalate_after: "30m",
            escalate_to: "group:oncall",
          },
        ],
      }),
      OWNER,
    );
  },
});

const T0 = new Date("2031-07-01T10:00:00.000Z");
const clock = fixedClock(T0);
let reviewbot: AgentPrincipal;
const userId = async (handle: string) =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;

beforeAll(async () => {
  reviewbot = requireAgent(
    await authenticate(new Headers({ authorization: `Bearer ${hub.account("acme").keys[REVIEW]}` })),
  );
  accountId = reviewbot.accountId;
});
beforeEach(() => {
  clock.set(T0);
  setClock(clock);
});
afterEach(() => db().delegation.deleteMany({}));
afterAll(async () => {
  setClock(null);
  await channels.close();
});

let n = 0;
async function submit(request: Record<string, unknown> = { mode: "confirm" }) {
  clock.set(T0);
  const title = `review item ${++n}`;
  const { ack } = await submitMessage(reviewbot, envelope("ask", REVIEW, { title, request }));
  await processNotifications(ack.id);
  return { id: ack.id, title };
}

/** Each mail about the item whose subject starts with `prefix`, by recipient handle. */
function mails(title: string, prefix: string): Map<string, ParsedMail> {
  const out = new Map<string, ParsedMail>();
  for (const r of channels.capture.received) {
    const subject = r.mail.subject ?? "";
    if (subject.startsWith(prefix) && subject.endsWith(` ${title}`)) out.set(r.to.replace("@acme.test", ""), r.mail);
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}
const links = (m: ParsedMail | undefined) => (m ? [...answerLinks(m).keys()] : []);
const dmsTo = (title: string, handle: string) =>
  channels.slack.posts.filter((p) => p.text.endsWith(title) && p.channel === `D${handle.toUpperCase()}`);

describe("who is told, with what", () => {
  it("a delegate is told of the delegator's new ask with answers; not named by allowed_resolvers, with none", async () => {
    await setDelegation({
      accountId,
      delegator: "bob",
      delegate: "carol",
      startsAt: new Date(T0.getTime() - 60_000),
      endsAt: new Date(T0.getTime() + 3_600_000),
      actor: "human:bob",
    });
    const routed = await submit();
    expect([...mails(routed.title, "[").keys()]).toEqual(["bob", "carol"]);
    expect(links(mails(routed.title, "[").get("carol"))).toEqual(["Approve", "Deny"]);
    const listed = await submit({ mode: "confirm", allowed_resolvers: ["human:bob"] });
    expect([...mails(listed.title, "[").keys()]).toEqual(["bob", "carol"]);
    expect(links(mails(listed.title, "[").get("bob"))).toEqual(["Approve", "Deny"]);
    expect(links(mails(listed.title, "[").get("carol"))).toEqual([]);
  });

  it("a hand-over's people get 'Handed to you' by mail, Slack and push, with answers", async () => {
    const { id, title } = await submit();
    const pushesBefore = channels.pushes.length;
    await reassignMessage(await userId("bob"), id, "group:finance", "yours");
    await processNotifications(id);
    const handed = mails(title, "Handed to you: ");
    expect([...handed.keys()]).toEqual(["fay"]);
    expect(handed.get("fay")?.text).toContain("This item was handed to you");
    expect(links(handed.get("fay"))).toEqual(["Approve", "Deny"]);
    // fay was not asked before: the hand-over's DM is her only one, saying so.
    expect(dmsTo(title, "fay").map((p) => postText(p))).toEqual([expect.stringContaining("This was handed to you.")]);
    expect(channels.pushes.slice(pushesBefore)).toEqual(["/push/fay"]);
  });

  it("an escalation tells the group with answers; outside allowed_resolvers, the words only", async () => {
    const { id, title } = await submit();
    const listed = await submit({ mode: "confirm", allowed_resolvers: ["human:bob"] });
    clock.set(new Date(T0.getTime() + 30 * 60_000));
    // Every ask of this file is due now (each has the rule's escalation); these two are among them.
    expect(await escalateDue()).toBeGreaterThanOrEqual(2);
    expect(await db().policyEscalation.count({ where: { messageId: { in: [id, listed.id] } } })).toBe(0);
    await processNotifications(id);
    await processNotifications(listed.id);
    const escalated = mails(title, "Escalation: ");
    expect(escalated.get("erin")?.text).toContain("with no answer from the people asked");
    expect(links(escalated.get("erin"))).toEqual(["Approve", "Deny"]);
    const told = mails(listed.title, "Escalation: ");
    expect(told.get("erin")?.text).toContain("with no answer from the people asked");
    expect(links(told.get("erin"))).toEqual([]);
  });
});
