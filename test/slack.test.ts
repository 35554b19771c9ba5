/**
 * The Slack channel (docs/notifications.md "Slack"), against a real web + worker pair, the
 * real `@slack/web-api` client talking to a local Slack-compatible server (test/support/slack-fake.ts)
 * and a loopback push receiver: the connection is verified with `auth.test` and sealed; an ask is
 * posted once to the account's channel and as a DM to each bound resolver; a signed click by a bound
 * person with the resolver right resolves it through `resolveMessage` (the agent's pushed Response
 * verifies, the audit says `channel: "slack"`) and every post is updated with the outcome and the
 * decider; forged, stale, foreign-signed, unbound, unseated and viewer clicks change nothing; an
 * answer elsewhere or a cancel updates the posts; a sensitive item's post carries only its title.
 */
// covers: lib/notifications/slack/, app/api/slack/interactions/[account]/route.ts
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { resetEnvCache } from "../lib/env";
import { itemNotificationLog } from "../lib/notifications/item-log";
import { BUILT_IN } from "../lib/notifications/preferences";
import { savePreferences } from "../lib/notifications/preferences-store";
import { addBinding } from "../lib/principals/bindings";
import { createWebSession } from "../lib/principals/web-sessions";
import { seatFor } from "../lib/principals/seats";
import { bindSlackUser } from "../lib/notifications/slack/bindings";
import { connectSlack, disconnectSlack, setSlackDestinations } from "../lib/notifications/slack/connection";
import { AgentVerifier } from "./support/agent-verify";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { waitFor } from "./support/wait";
import { submitPush } from "./support/push-kit";
import {
  answerButtons,
  click,
  postText,
  type SlackFake,
  type SlackPostRecord,
  startSlackFake,
  type Workspace,
} from "./support/slack-fake";

const A = "bot/acme";
const PUSH_SECRET = "slack-push-secret";
const ACME: Workspace = { token: "xoxb-acme-1", teamId: "TACME", teamName: "Acme Slack", botUserId: "UBOT" };
const OTHER: Workspace = { token: "xoxb-other-2", teamId: "TOTHER", teamName: "Other Slack", botUserId: "UBOT2" };
/** A second bot token of the same workspace (a reinstalled app). */
const OTHER_2: Workspace = { ...OTHER, token: "xoxb-other-3" };
const ACME_SECRET = "acmesigningsecret0123456789abcdef";
const OTHER_SECRET = "othersigningsecret0123456789abcd";
const ATTACKER_SECRET = "attackersigningsecret0123456789a";
const CHANNEL = "CACME01";
let slack: SlackFake;

async function userId(handle: string, slug: string): Promise<string> {
  return (await db().user.findUniqueOrThrow({ where: { email: `${handle}@${slug}.test` } })).id;
}

const hub = useHubFixture({
  server: "pair",
  receivers: 1,
  accounts: {
    acme: {
      agents: [A],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "mia", role: "member" },
        { handle: "vic", role: "viewer" },
        { handle: "pat", role: "member" },
      ],
    },
    other: {
      agents: ["bot/other"],
      humans: [
        { handle: "otto", role: "owner" },
        { handle: "ada", role: "admin" },
      ],
    },
  },
  setup: async (h) => {
    slack = await startSlackFake([ACME, OTHER, OTHER_2]);
    process.env.SLACK_API_URL = slack.apiUrl;
    resetEnvCache();
    await addBinding({
      agentRef: { agentId: A, accountSlug: "acme" },
      origin: h.receiver.origin,
      secretRef: "cb",
      secret: PUSH_SECRET,
    });
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    const other = await db().account.findUniqueOrThrow({ where: { slug: "other" } });
    const olga = await seatFor(await userId("olga", "acme"), acme.id);
    const otto = await seatFor(await userId("otto", "other"), other.id);
    if (!olga || !otto) throw new Error("no seats");
    // A token Slack does not accept stores nothing.
    await expect(
      connectSlack({ ...olga, actor: "human:olga" }, { botToken: "xoxb-wrong", signingSecret: ACME_SECRET }),
    ).rejects.toMatchObject({ code: "validation_error" });
    expect(await db().slackConnection.count()).toBe(0);
    await connectSlack(
      { ...olga, actor: "human:olga" },
      { botToken: ACME.token, signingSecret: ACME_SECRET, channelId: CHANNEL, directMessages: true },
    );
    await connectSlack({ ...otto, actor: "human:otto" }, { botToken: OTHER.token, signingSecret: OTHER_SECRET });
    // Bindings as the bind flow makes them (bindings.ts): otto's Slack user is bound in acme, where
    // otto has no seat.
    await db().$transaction(async (tx) => {
      for (const [slackUserId, handle, slug] of [
        ["UMIA", "mia", "acme"],
        ["UOLGA", "olga", "acme"],
        ["UVIC", "vic", "acme"],
        ["UPAT", "pat", "acme"],
        ["UOTTO", "otto", "other"],
      ] as const)
        await bindSlackUser(
          tx,
          { accountId: acme.id, teamId: ACME.teamId, slackUserId, userId: await userId(handle, slug) },
          new Date(),
        );
    });
    // pat turned Slack off for asks and tasks.
    const patId = await userId("pat", "acme");
    const pat = await seatFor(patId, acme.id);
    if (!pat) throw new Error("no seat");
    await savePreferences(patId, pat, {
      ...BUILT_IN,
      channels: { ...BUILT_IN.channels, slack: { ...BUILT_IN.channels.slack, askTask: false } },
    });
  },
  env: (h) => ({
    SLACK_API_URL: slack.apiUrl,
    MA2H_DELIVERY_SWEEP_MS: "500",
    MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin,
    MA2H_PUSH_BASE_DELAY_MS: "500",
    MA2H_NOTIFY_RETRY_BASE_MS: "300",
  }),
});

afterAll(() => slack.close());

const interactionUrl = (slug = "acme") => `${hub.url}/api/slack/interactions/${slug}`;

const until = <T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeout = 60_000): Promise<T> =>
  waitFor(f, { what, timeout, every: 100 });

let n = 0;
async function submit(over: Record<string, unknown> = {}, type: "ask" | "task" = "ask") {
  const title = `slack ${type} ${++n} ${Date.now()}`;
  const res = await hub.agent(A, "acme").post("/v1/messages", envelope(type, A, { title, ...over }));
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return { id: res.body.id as string, title };
}

/** The item's posts in the fake, once `count` have arrived: channel post and DMs by conversation. */
async function postsOf(id: string, count: number): Promise<Map<string, SlackPostRecord>> {
  const mine = () => slack.posts.filter((p) => postText(p).includes(id));
  await until(`${count} posts of ${id}`, () => (mine().length >= count ? true : undefined));
  const busy = { in: ["pending", "sending"] };
  await until(`the worker done with ${id}`, async () =>
    (await db().notification.count({ where: { messageId: id, channel: "slack", kind: "new", status: busy } })) +
      (await db().slackPost.count({ where: { messageId: id, status: busy } })) ===
    0
      ? true
      : undefined,
  );
  expect(mine()).toHaveLength(count);
  return new Map(mine().map((p) => [p.channel, p]));
}

async function state(id: string) {
  const row = await db().message.findUniqueOrThrow({ where: { id }, include: { resolution: true } });
  const audit = await db().auditEvent.findMany({ where: { messageId: id }, orderBy: { at: "asc" } });
  return { row, audit };
}

const ephemeralsTo = (user: string) =>
  slack.calls.filter((c) => c.method === "chat.postEphemeral" && c.args.user === user).map((c) => String(c.args.text));

describe("connecting", () => {
  it("verified with auth.test, sealed, audited without a secret", async () => {
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    const conn = await db().slackConnection.findUniqueOrThrow({ where: { accountId: acme.id } });
    expect(conn).toMatchObject({
      teamId: "TACME",
      teamName: "Acme Slack",
      channelId: CHANNEL,
      connectedBy: "human:olga",
    });
    expect(JSON.stringify(conn)).not.toContain(ACME.token);
    expect(JSON.stringify(conn)).not.toContain(ACME_SECRET);
    const audit = await db().auditEvent.findMany({ where: { accountId: acme.id, event: "slack.connected" } });
    expect(audit).toHaveLength(1);
    expect(audit[0]?.detail).toMatchObject({ team_id: "TACME", channel_id: CHANNEL, direct_messages: true });
    expect(JSON.stringify(audit[0]?.detail)).not.toContain(ACME.token);
    expect(JSON.stringify(audit[0]?.detail)).not.toContain(ACME_SECRET);
  });

  it("the admin page shows the workspace, when and by whom — never a secret; a member gets 404", async () => {
    const page = async (handle: string) => {
      const token = `slack-session-${handle}-${Date.now()}`;
      await createWebSession(await userId(handle, "acme"), token, new Date(Date.now() + 3600_000));
      const res = await fetch(`${hub.url}/admin/acme/slack`, {
        headers: { cookie: `next-auth.session-token=${token}` },
      });
      return { status: res.status, html: await res.text() };
    };
    const owner = await page("olga");
    expect(owner.status).toBe(200);
    expect(owner.html).toContain("Acme Slack");
    expect(owner.html).toContain("human:olga");
    expect(owner.html).toContain(`/api/slack/interactions/acme`);
    expect(owner.html).not.toContain(ACME.token);
    expect(owner.html).not.toContain(ACME_SECRET);
    expect((await page("mia")).status).toBe(404);
  });
});

describe("posting", () => {
  it("an ask: one channel post and a DM per bound resolver (not the viewer, not pat who turned Slack off)", async () => {
    const { id, title } = await submit();
    const posts = await postsOf(id, 3);
    expect([...posts.keys()].sort()).toEqual([CHANNEL, "DMIA", "DOLGA"]);
    for (const p of posts.values()) {
      expect([...answerButtons(p).keys()]).toEqual(["Ship", "Hold"]);
      expect(postText(p)).toContain(title);
      expect(postText(p)).toContain(`${hub.url}/inbox/${id}`);
    }
    const rows = await db().slackPost.findMany({ where: { messageId: id } });
    expect(rows.map((r) => [r.channelId, r.status, r.shownStatus]).sort()).toEqual([
      [CHANNEL, "posted", "open"],
      ["DMIA", "posted", "open"],
      ["DOLGA", "posted", "open"],
    ]);
  });

  it("a sensitive item's posts carry only its title and Open in inbox; agent text is escaped", async () => {
    const { id } = await submit({ sensitive: true, body: "SECRET-BODY <@U1> & more" });
    const posts = await postsOf(id, 3);
    for (const p of posts.values()) {
      expect(answerButtons(p).size).toBe(0);
      expect(postText(p)).not.toContain("SECRET-BODY");
      expect(postText(p)).not.toContain("Ship");
      expect(postText(p)).toContain("Open in inbox");
    }
    const open = await submit({ body: "see <https://evil.test|here> & <!channel>" });
    const channelPost = (await postsOf(open.id, 3)).get(CHANNEL) as SlackPostRecord;
    expect(postText(channelPost)).toContain("&lt;https://evil.test|here&gt; &amp; &lt;!channel&gt;");
    expect(postText(channelPost)).not.toContain("<https://evil.test");
  });
});

describe("answering from Slack", () => {
  it("a bound member's signed click resolves; the agent's Response verifies; audited as slack; every post updated", async () => {
    const sent = await submitPush(hub.url, hub.account("acme").keys[A] as string, A, `${hub.receiver.origin}/cb/sl`, {
      scheme: "hmac",
      secret_ref: "cb",
    });
    const posts = await postsOf(sent.id, 3);
    const hold = answerButtons(posts.get(CHANNEL) as SlackPostRecord).get("Hold") as string;
    const res = await click(interactionUrl(), ACME_SECRET, {
      teamId: ACME.teamId,
      userId: "UMIA",
      channelId: CHANNEL,
      value: hold,
      actionId: "ma2h_answer_1",
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");

    const s = await state(sent.id);
    expect(s.row.status).toBe("answered");
    expect(s.row.resolution?.actor).toBe("human:mia");
    expect(s.audit.find((a) => a.event === "message.answered")?.detail).toMatchObject({
      via: "resolve",
      channel: "slack",
    });

    const [got] = await hub.receiver.waitFor("/cb/sl", 1, 20_000);
    if (!got) throw new Error("no push");
    const verdict = await new AgentVerifier({ callbackUrl: sent.url, hmacSecrets: [PUSH_SECRET] }).verify(
      got.headers,
      got.body,
      got.at / 1000,
    );
    if (!verdict.ok) throw new Error(`push did not verify: ${verdict.reason}`);
    expect(verdict.body.response).toMatchObject({ value: "hold", actor: "human:mia", edited: false });
    const pulled = await hub.agent(A, "acme").get(`/v1/messages/${sent.id}`);
    expect(pulled.body.response).toEqual(verdict.body);

    // Every post (channel and DMs) now shows the outcome and who decided, and no answer buttons.
    await until("all posts updated", () => ([...posts.values()].every((p) => p.updates > 0) ? true : undefined));
    for (const p of posts.values()) {
      expect(answerButtons(p).size).toBe(0);
      expect(postText(p)).toContain("answered: Hold");
      expect(postText(p)).toContain("by human:mia via slack");
    }
    await until("recorded as shown", async () =>
      (await db().slackPost.count({ where: { messageId: sent.id, shownStatus: "answered" } })) === 3 ? true : undefined,
    );

    // A second click: already decided, nothing changes.
    const again = await click(interactionUrl(), ACME_SECRET, {
      teamId: ACME.teamId,
      userId: "UOLGA",
      channelId: CHANNEL,
      value: hold,
    });
    expect(again.status).toBe(200);
    expect(ephemeralsTo("UOLGA").at(-1)).toContain("already decided");
    expect((await state(sent.id)).row.resolution?.id).toBe(s.row.resolution?.id);

    // The item page's Notifications panel shows owners/admins the channel post; others not at all.
    const log = await itemNotificationLog(sent.id, true);
    expect(log.slackChannelPost).toMatchObject({ status: "posted", shownStatus: "answered", channelId: CHANNEL });
    expect((await itemNotificationLog(sent.id, false)).slackChannelPost).toBeNull();
  });

  it("forged, stale, foreign-signed, unbound, unseated and viewer clicks are refused and change nothing", async () => {
    const { id } = await submit();
    const posts = await postsOf(id, 3);
    const ship = answerButtons(posts.get(CHANNEL) as SlackPostRecord).get("Ship") as string;
    const base = { teamId: ACME.teamId, channelId: CHANNEL, value: ship };
    const before = await state(id);

    // Signature failures: 401 before anything is parsed.
    expect((await click(interactionUrl(), "not-the-secret", { ...base, userId: "UMIA" })).status).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    expect((await click(interactionUrl(), ACME_SECRET, { ...base, userId: "UMIA", timestamp: stale })).status).toBe(
      401,
    );
    expect((await click(interactionUrl(), OTHER_SECRET, { ...base, userId: "UMIA" })).status).toBe(401);
    const bare = await fetch(interactionUrl(), { method: "POST", body: "payload={}" });
    expect(bare.status).toBe(401);
    expect((await bare.json()).error.code).toBe("unauthenticated");
    // Signed with acme's secret, but from another workspace.
    expect((await click(interactionUrl(), ACME_SECRET, { ...base, teamId: OTHER.teamId, userId: "UMIA" })).status).toBe(
      403,
    );
    // Unknown account, or an account without Slack: like any unknown thing.
    expect((await click(interactionUrl("nope"), ACME_SECRET, { ...base, userId: "UMIA" })).status).toBe(404);

    // Unbound: an ephemeral with a bind link.
    expect((await click(interactionUrl(), ACME_SECRET, { ...base, userId: "UNOBODY" })).status).toBe(200);
    expect(ephemeralsTo("UNOBODY").at(-1)).toMatch(new RegExp(`${hub.url}/slack/bind/[A-Za-z0-9_-]{43}`));
    // The link keeps what the signed click said of the clicker and the workspace (the page shows it).
    expect(
      (
        await click(interactionUrl(), ACME_SECRET, {
          ...base,
          userId: "UNAMED",
          userName: "nina\u202e.k",
          teamDomain: "acme-hq",
        })
      ).status,
    ).toBe(200);
    expect(
      await db().slackBindToken.findFirst({
        where: { slackUserId: "UNAMED" },
        select: { slackUserName: true, teamDomain: true },
      }),
    ).toEqual({ slackUserName: "nina.k", teamDomain: "acme-hq" });
    // Bound, but no seat in acme; bound viewer: an ephemeral refusal.
    for (const user of ["UOTTO", "UVIC"]) {
      expect((await click(interactionUrl(), ACME_SECRET, { ...base, userId: user })).status).toBe(200);
      expect(ephemeralsTo(user).at(-1)).toContain("may not answer");
    }
    // An item of another account, through acme's app: unknown.
    const foreign = await hub.agent("bot/other", "other").post("/v1/messages", envelope("ask", "bot/other"));
    expect(foreign.status).toBe(202);
    const foreignValue = JSON.stringify({ m: foreign.body.id, v: "ship" });
    expect((await click(interactionUrl(), ACME_SECRET, { ...base, userId: "UMIA", value: foreignValue })).status).toBe(
      200,
    );
    expect(ephemeralsTo("UMIA").at(-1)).toContain("not known");

    const after = await state(id);
    expect(after.row.status).toBe("open");
    expect(after.row.resolution).toBeNull();
    expect(after.audit.map((a) => a.event)).toEqual(before.audit.map((a) => a.event));
    expect((await state(foreign.body.id as string)).row.status).toBe("open");
    // Nothing about the refused requests' secrets or payloads in the logs.
    expect(`${hub.web.output()}`).not.toContain(ship);
  });
});

describe("refresh", () => {
  it("an answer through the API, and a cancel, update the Slack posts", async () => {
    const answered = await submit();
    const cancelled = await submit();
    const a = await postsOf(answered.id, 3);
    const c = await postsOf(cancelled.id, 3);
    const res = await hub
      .human("olga", "acme")
      .post(`/v1/messages/${answered.id}/resolve`, { resolution: "answered", value: "ship" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await hub.agent(A, "acme").post(`/v1/messages/${cancelled.id}/cancel`, {})).status).toBe(200);
    await until("posts updated", () => ([...a.values(), ...c.values()].every((p) => p.updates > 0) ? true : undefined));
    for (const p of a.values()) {
      expect(postText(p)).toContain("answered: Ship");
      expect(postText(p)).toContain("by human:olga");
      expect(answerButtons(p).size).toBe(0);
    }
    for (const p of c.values()) {
      expect(postText(p)).toContain("cancelled");
      expect(answerButtons(p).size).toBe(0);
    }
  });

  it("a post whose update failed transiently is updated by the sweep", async () => {
    const { id } = await submit();
    const posts = await postsOf(id, 3);
    slack.failNext("chat.update", { status: 503 });
    const res = await hub.human("olga", "acme").post(`/v1/messages/${id}/resolve`, { resolution: "declined" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await until("posts updated", () => ([...posts.values()].every((p) => p.updates > 0) ? true : undefined));
    await until("recorded as shown", async () =>
      (await db().slackPost.count({ where: { messageId: id, shownStatus: "declined" } })) === 3 ? true : undefined,
    );
    // One update was refused with a 503 and made again: more update calls than posts.
    const tss = new Set([...posts.values()].map((p) => p.ts));
    const updates = slack.calls.filter((c) => c.method === "chat.update" && tss.has(String(c.args.ts)));
    expect(updates.length).toBeGreaterThanOrEqual(4);
  });

  it("posts that failed transiently are posted on retry, once each", async () => {
    slack.failNext("chat.postMessage", { error: "ratelimited" });
    slack.failNext("chat.postMessage", { status: 500 });
    const { id } = await submit({}, "task");
    const posts = await postsOf(id, 3);
    expect([...posts.keys()].sort()).toEqual([CHANNEL, "DMIA", "DOLGA"]);
    for (const p of posts.values()) expect(answerButtons(p).size).toBe(0); // a task: Open in inbox only
    const rows = await db().slackPost.findMany({ where: { messageId: id } });
    expect(rows.every((r) => r.status === "posted")).toBe(true);
  });
});

describe("reconnecting", () => {
  async function ottoAndAda() {
    const other = await db().account.findUniqueOrThrow({ where: { slug: "other" } });
    const ottoId = await userId("otto", "other");
    const otto = await seatFor(ottoId, other.id);
    const ada = await seatFor(await userId("ada", "other"), other.id);
    if (!otto || !ada) throw new Error("no seat");
    return { other, ottoId, otto: { ...otto, actor: "human:otto" }, ada: { ...ada, actor: "human:ada" } };
  }
  const bindOtto = (accountId: string, teamId: string, ottoId: string) =>
    db().$transaction((tx) =>
      bindSlackUser(tx, { accountId, teamId, slackUserId: "UOTTO2", userId: ottoId }, new Date()),
    );

  it("only an owner connects, reconnects or disconnects; an admin is refused and changes nothing", async () => {
    const { other, ottoId, ada } = await ottoAndAda();
    await bindOtto(other.id, OTHER.teamId, ottoId);
    const before = await db().slackConnection.findUniqueOrThrow({ where: { accountId: other.id } });
    await expect(connectSlack(ada, { botToken: OTHER_2.token, signingSecret: ATTACKER_SECRET })).rejects.toMatchObject({
      code: "not_authorized",
    });
    await expect(disconnectSlack(ada)).rejects.toMatchObject({ code: "not_authorized" });
    expect(await db().slackConnection.findUniqueOrThrow({ where: { accountId: other.id } })).toEqual(before);
    expect(await db().slackIdentity.count({ where: { accountId: other.id } })).toBe(1);
    // Where items go stays an admin's choice.
    await expect(setSlackDestinations(ada, { channelId: "", directMessages: true })).resolves.toBeDefined();
    // The admin page offers an admin no connect or disconnect form.
    const token = `slack-session-ada-${Date.now()}`;
    await createWebSession(await userId("ada", "other"), token, new Date(Date.now() + 3600_000));
    const html = await (
      await fetch(`${hub.url}/admin/other/slack`, { headers: { cookie: `next-auth.session-token=${token}` } })
    ).text();
    expect(html).toContain("Only an owner of the account can connect");
    expect(html).not.toContain('data-testid="slack-connect"');
    expect(html).not.toContain('data-testid="slack-disconnect"');
  });

  it("a new signing secret in the same workspace drops every binding; the very same connection keeps them", async () => {
    const { other, ottoId, otto } = await ottoAndAda();
    await connectSlack(otto, { botToken: OTHER.token, signingSecret: OTHER_SECRET });
    await bindOtto(other.id, OTHER.teamId, ottoId);
    // The very same token, secret and workspace: nothing changes, the binding stays.
    await connectSlack(otto, { botToken: OTHER.token, signingSecret: OTHER_SECRET });
    expect(await db().slackIdentity.count({ where: { accountId: other.id } })).toBe(1);

    await connectSlack(otto, { botToken: OTHER.token, signingSecret: ATTACKER_SECRET });
    expect(await db().slackIdentity.count({ where: { accountId: other.id } })).toBe(0);
    const audit = await db().auditEvent.findFirstOrThrow({
      where: { accountId: other.id, event: "slack.connected" },
      orderBy: { id: "desc" },
    });
    expect(audit.detail).toMatchObject({ changed: ["signing_secret"], bindings_removed: 1 });
    expect(JSON.stringify(audit.detail)).not.toContain(ATTACKER_SECRET);
    const removal = await db().auditEvent.findFirstOrThrow({
      where: { accountId: other.id, event: "slack.user_unbound" },
      orderBy: { id: "desc" },
    });
    expect(removal.detail).toMatchObject({
      slack_user_id: "UOTTO2",
      reason: "connection_changed",
      changed: ["signing_secret"],
      user_id: ottoId,
    });
    const own = await db().auditEvent.findFirstOrThrow({
      where: { userId: ottoId, event: "slack.user_unbound" },
      orderBy: { id: "desc" },
    });
    expect(own.actor).toBe("system:slack_connection_changed");
  });

  it("a new bot token of the same workspace, another workspace, and a disconnect each drop the bindings", async () => {
    const { other, ottoId, otto } = await ottoAndAda();
    await connectSlack(otto, { botToken: OTHER.token, signingSecret: OTHER_SECRET });
    await bindOtto(other.id, OTHER.teamId, ottoId);
    await connectSlack(otto, { botToken: OTHER_2.token, signingSecret: OTHER_SECRET });
    expect(await db().slackIdentity.count({ where: { accountId: other.id } })).toBe(0);
    const lastConnect = () =>
      db().auditEvent.findFirstOrThrow({
        where: { accountId: other.id, event: "slack.connected" },
        orderBy: { id: "desc" },
      });
    expect((await lastConnect()).detail).toMatchObject({ changed: ["bot_token"], bindings_removed: 1 });

    await bindOtto(other.id, OTHER.teamId, ottoId);
    await connectSlack(otto, { botToken: ACME.token, signingSecret: OTHER_SECRET });
    expect(await db().slackIdentity.count({ where: { accountId: other.id } })).toBe(0);
    expect((await lastConnect()).detail).toMatchObject({
      team_id: ACME.teamId,
      changed: ["workspace", "bot_token"],
      bindings_removed: 1,
    });

    await bindOtto(other.id, ACME.teamId, ottoId);
    await disconnectSlack(otto);
    expect(await db().slackIdentity.count({ where: { accountId: other.id } })).toBe(0);
    const gone = await db().auditEvent.findFirstOrThrow({
      where: { accountId: other.id, event: "slack.disconnected" },
      orderBy: { id: "desc" },
    });
    expect(gone.detail).toMatchObject({ bindings_removed: 1 });
    // acme's links are untouched.
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    expect(await db().slackIdentity.count({ where: { accountId: acme.id } })).toBe(5);
  });
});
