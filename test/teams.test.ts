/**
 * Microsoft Teams (docs/notifications.md "Microsoft Teams"), in this process against local stand-ins
 * of the Bot Connector, the OpenID metadata and keys, and the token endpoint (test/support/teams-fake.ts),
 * over real loopback HTTP through the Hub's egress client: connecting checks the secret at the token
 * endpoint and seals it; an ask's Adaptive Card is posted to the channel by the notification job; a
 * signed `adaptiveCard/action` invoke from a bound Teams user resolves the ask as that person (the
 * audit says `channel: "teams"`) and the card shows the outcome; a forged signature, a wrong audience,
 * an expired token, a mismatched `serviceurl`, an unbound user and another tenant are each refused
 * with nothing changed; an answer elsewhere updates the card; under a quorum a click records one
 * approval and the card shows "1 of 2"; a reconnect with a new secret drops every binding.
 */
// covers: lib/notifications/teams/, lib/notifications/chat-answer.ts, lib/principals/members.ts, lib/delivery/egress.ts, lib/notifications/fanout.ts
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { resetEnvCache } from "../lib/env";
import { resolveMessage } from "../lib/messages/resolve";
import { submitMessage } from "../lib/messages/submit";
import { processNotifications } from "../lib/notifications/fanout";
import { checkTeamsBindLink, redeemTeamsBindLink } from "../lib/notifications/teams/bind-links";
import { bindTeamsUser } from "../lib/notifications/teams/bindings";
import { connectTeams } from "../lib/notifications/teams/connection";
import { handleTeamsActivity } from "../lib/notifications/teams/invoke";
import { PolicyFileSchema } from "../lib/policies/model";
import { applyPolicy } from "../lib/policies/store";
import { authenticate, requireAgent } from "../lib/principals/authenticate";
import { removeMember } from "../lib/principals/members";
import { seatFor } from "../lib/principals/seats";
import { createWebSession } from "../lib/principals/web-sessions";
import type { AgentPrincipal } from "../lib/principals/types";
import { useHubFixture } from "./support/hub-fixture";
import { envelope } from "./support/provision";
import { answerActions, type Bot, cardText, startTeamsFake, type TeamsFake } from "./support/teams-fake";

const A = "bot/acme";
const DEPLOY = "deploybot/prod";
const BOT: Bot = {
  appId: "11111111-2222-3333-4444-555555555555",
  tenantId: "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
  secret: "acme-teams-secret-1",
};
const OTHER_TENANT = "ffffffff-bbbb-cccc-dddd-eeeeeeeeeeee";
const CHANNEL = "19:acmechannel01@thread.tacv2";
const aad = (handle: string) => `0000${handle.padEnd(4, "x")}-0000-0000-0000-000000000000`.slice(0, 36);
let teams: TeamsFake;
let accountId = "";
let bot: AgentPrincipal;
let deploybot: AgentPrincipal;

const userId = async (handle: string) =>
  (await db().user.findUniqueOrThrow({ where: { email: `${handle}@acme.test` }, select: { id: true } })).id;

const hub = useHubFixture({
  server: "web",
  accounts: {
    acme: {
      agents: [A, DEPLOY],
      humans: [
        { handle: "olga", role: "owner" },
        { handle: "mia", role: "member" },
        { handle: "pat", role: "member" },
        { handle: "ben", role: "member" },
        { handle: "vic", role: "viewer" },
      ],
    },
  },
  setup: async () => {
    teams = await startTeamsFake([BOT, { ...BOT, secret: "acme-teams-secret-2" }]);
    process.env.TEAMS_OPENID_METADATA_URL = teams.metadataUrl;
    process.env.TEAMS_TOKEN_URL = teams.tokenUrl;
    process.env.MA2H_DEV_MODE = "1";
    process.env.MA2H_DEV_CALLBACK_ALLOWLIST = teams.url;
    resetEnvCache();
    const account = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    accountId = account.id;
    await applyPolicy(
      account.id,
      PolicyFileSchema.parse({
        version: 1,
        rules: [
          {
            name: "prod-deploys",
            match: { agent: "deploybot/*", mode: "confirm" },
            assign: ["human:mia", "human:pat", "human:ben"],
            approvals: 2,
          },
        ],
      }),
      { actor: "human:olga", role: "owner" },
    );
  },
  env: () => ({
    TEAMS_OPENID_METADATA_URL: teams.metadataUrl,
    TEAMS_TOKEN_URL: teams.tokenUrl,
    MA2H_DEV_CALLBACK_ALLOWLIST: teams.url,
  }),
});

beforeAll(async () => {
  const keys = hub.account("acme").keys;
  bot = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${keys[A]}` })));
  deploybot = requireAgent(await authenticate(new Headers({ authorization: `Bearer ${keys[DEPLOY]}` })));
});
afterAll(() => teams?.close());

async function owner() {
  const seat = await seatFor(await userId("olga"), accountId);
  if (!seat) throw new Error("no seat");
  return { ...seat, actor: "human:olga" };
}

async function bind(handle: string) {
  const uid = await userId(handle);
  await db().$transaction((tx) =>
    bindTeamsUser(
      tx,
      {
        accountId,
        tenantId: BOT.tenantId,
        teamsUserId: aad(handle),
        chatUserId: `29:${handle}`,
        userId: uid,
        actor: `human:${handle}`,
        slug: "acme",
      },
      new Date(),
    ),
  );
}

let n = 0;
async function submit(agent: AgentPrincipal = bot, agentId = A) {
  const title = `teams ask ${++n}`;
  const { ack } = await submitMessage(agent, envelope("ask", agentId, { title, request: { mode: "confirm" } }));
  await processNotifications(ack.id);
  const posted = teams.activities.find((a) => a.conversationId === CHANNEL && cardText(a.card).includes(title));
  return { id: ack.id, title, posted };
}

interface InvokeOptions {
  handle?: string;
  tenant?: string;
  audience?: string;
  tokenServiceUrl?: string;
  expiresInS?: number;
  stranger?: boolean;
  data?: Record<string, unknown>;
}

/** The Bot Framework's side of a click: its bearer token and the invoke activity. */
async function signedInvoke(messageId: string, o: InvokeOptions = {}) {
  const token = await teams.signToken({
    audience: o.audience ?? BOT.appId,
    serviceUrl: o.tokenServiceUrl ?? teams.serviceUrl,
    expiresInS: o.expiresInS,
    stranger: o.stranger,
  });
  const activity = {
    type: "invoke",
    name: "adaptiveCard/action",
    serviceUrl: teams.serviceUrl,
    from: { id: `29:${o.handle ?? "mia"}`, aadObjectId: aad(o.handle ?? "mia") },
    conversation: { id: CHANNEL, tenantId: o.tenant ?? BOT.tenantId },
    value: {
      action: {
        type: "Action.Execute",
        verb: "ma2h_answer",
        data: o.data ?? { ma2h: "answer", m: messageId, v: "approve" },
      },
    },
  };
  return { authorization: `Bearer ${token}`, rawBody: JSON.stringify(activity) };
}

/** A click handled in-process. */
async function invoke(messageId: string, o: InvokeOptions = {}) {
  return handleTeamsActivity("acme", await signedInvoke(messageId, o));
}

/** A click POSTed to the Hub's messaging endpoint. */
async function post(messageId: string, o: InvokeOptions = {}) {
  const { authorization, rawBody } = await signedInvoke(messageId, o);
  const res = await fetch(`${hub.url}/api/teams/messages/acme`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: rawBody,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

async function session(handle: string): Promise<string> {
  const token = `teams-session-${handle}-${Date.now()}`;
  await createWebSession(await userId(handle), token, new Date(Date.now() + 3600_000));
  return `next-auth.session-token=${token}`;
}

const state = (id: string) => db().message.findUniqueOrThrow({ where: { id }, include: { resolution: true } });

describe("connecting", () => {
  it("a secret the token endpoint refuses stores nothing; the right one is sealed and audited without it", async () => {
    await expect(
      connectTeams(await owner(), { appId: BOT.appId, tenantId: BOT.tenantId, appSecret: "wrong-secret-1" }),
    ).rejects.toMatchObject({ code: "validation_error" });
    expect(await db().teamsConnection.count()).toBe(0);
    await expect(
      connectTeams(await owner(), {
        appId: BOT.appId,
        tenantId: BOT.tenantId,
        appSecret: BOT.secret,
        channelId: CHANNEL,
        serviceUrl: "https://attacker.example/svc/",
      }),
    ).rejects.toMatchObject({ code: "validation_error" });
    const mia = await seatFor(await userId("mia"), accountId);
    await expect(
      connectTeams(
        { ...(mia as NonNullable<typeof mia>), actor: "human:mia" },
        { appId: BOT.appId, tenantId: BOT.tenantId, appSecret: BOT.secret },
      ),
    ).rejects.toMatchObject({ code: "not_authorized" });
    await connectTeams(await owner(), {
      appId: BOT.appId,
      tenantId: BOT.tenantId,
      appSecret: BOT.secret,
      channelId: CHANNEL,
      serviceUrl: teams.serviceUrl,
      personalMessages: true,
    });
    const row = await db().teamsConnection.findUniqueOrThrow({ where: { accountId } });
    expect(row).toMatchObject({
      appId: BOT.appId,
      tenantId: BOT.tenantId,
      channelId: CHANNEL,
      connectedBy: "human:olga",
    });
    expect(JSON.stringify(row)).not.toContain(BOT.secret);
    const audit = await db().auditEvent.findMany({ where: { accountId, event: "teams.connected" } });
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0]?.detail)).not.toContain(BOT.secret);
    for (const h of ["mia", "pat", "ben", "vic"]) await bind(h);
  });
});

describe("posting and clicking", () => {
  it("an ask's Adaptive Card is posted to the channel with its answer actions", async () => {
    const { id, posted } = await submit();
    expect(posted?.conversationId).toBe(CHANNEL);
    const actions = answerActions(posted?.card ?? {});
    expect(actions.map((a) => a.data)).toEqual([
      { ma2h: "answer", m: id, v: "approve" },
      { ma2h: "answer", m: id, v: "deny" },
    ]);
    expect(JSON.stringify(posted?.card)).toContain(`/inbox/${id}`);
    expect((await db().teamsPost.findFirstOrThrow({ where: { messageId: id } })).status).toBe("posted");
  });

  it("personal cards go to each bound person who may answer, not to a viewer, and settle with the item", async () => {
    const { id, title } = await submit();
    const personal = () =>
      teams.activities.filter((a) => a.conversationId.startsWith("a:chat-") && cardText(a.card).includes(title));
    expect(
      personal()
        .map((a) => a.conversationId)
        .sort(),
    ).toEqual(["a:chat-29:ben", "a:chat-29:mia", "a:chat-29:pat"]);
    for (const a of personal()) expect(answerActions(a.card)).toHaveLength(2);
    // Another run of the job sends nothing twice.
    await processNotifications(id);
    expect(personal()).toHaveLength(3);
    expect((await invoke(id, { handle: "ben" })).outcome).toBe("answered");
    for (const a of personal()) {
      expect(a.updates).toBe(1);
      expect(cardText(a.card)).toContain("answered: Approve — by human:ben via teams");
    }
  });

  it("forged, foreign-audience, expired, mismatched-serviceurl, unbound and other-tenant clicks change nothing", async () => {
    const { id, posted } = await submit();
    const calls = teams.calls.length;
    await expect(invoke(id, { stranger: true })).rejects.toMatchObject({ code: "unauthenticated" });
    await expect(invoke(id, { audience: "99999999-2222-3333-4444-555555555555" })).rejects.toMatchObject({
      code: "unauthenticated",
    });
    await expect(invoke(id, { expiresInS: -600 })).rejects.toMatchObject({ code: "unauthenticated" });
    await expect(invoke(id, { tokenServiceUrl: "https://smba.trafficmanager.net/emea/" })).rejects.toMatchObject({
      code: "unauthenticated",
    });
    await expect(invoke(id, { tenant: OTHER_TENANT })).rejects.toMatchObject({ code: "not_authorized" });
    const unbound = await invoke(id, { handle: "olga" });
    expect(unbound.outcome).toBe("unbound");
    const link = /\/teams\/bind\/(\S+)/.exec(String(unbound.body?.value))?.[1] as string;
    expect(checkTeamsBindLink(link, new Date())).toMatchObject({ teamsUserId: aad("olga"), tenantId: BOT.tenantId });
    const viewer = await invoke(id, { handle: "vic" });
    expect(viewer.outcome).toBe("refused");
    const row = await state(id);
    expect(row.status).toBe("open");
    expect(row.resolution).toBeNull();
    expect(teams.calls.length).toBe(calls);
    expect(posted?.updates).toBe(0);
    // The bind link binds the Teams user to whoever signs in and confirms — here olga.
    expect(await redeemTeamsBindLink(link, await userId("olga"), new Date())).toMatchObject({ ok: true });
    expect(await redeemTeamsBindLink(`${link}x`, await userId("olga"), new Date())).toMatchObject({ ok: false });
  });

  it("a signed click from a bound person resolves the ask as that person; the card shows the outcome", async () => {
    const { id, posted } = await submit();
    const reply = await invoke(id, { handle: "mia" });
    expect(reply.outcome).toBe("answered");
    expect(reply.body?.type).toBe("application/vnd.microsoft.card.adaptive");
    const row = await state(id);
    expect(row.status).toBe("answered");
    expect(row.resolution?.actor).toBe("human:mia");
    const audit = await db().auditEvent.findFirstOrThrow({ where: { messageId: id, event: "message.answered" } });
    expect(audit.detail).toMatchObject({ channel: "teams" });
    expect(posted?.updates).toBe(1);
    expect(cardText(posted?.card ?? {})).toContain("answered: Approve — by human:mia via teams");
    expect(answerActions(posted?.card ?? {})).toHaveLength(0);
    // A second click finds it decided and changes nothing.
    expect((await invoke(id, { handle: "pat" })).outcome).toBe("already_decided");
    expect((await state(id)).resolution?.actor).toBe("human:mia");
  });

  it("a small input ask's card is a form; its submit answers with the typed object", async () => {
    const title = `teams input ${++n}`;
    const request = {
      mode: "input",
      schema: {
        type: "object",
        properties: { reason: { type: "string", title: "Reason" }, count: { type: "integer" } },
        required: ["reason"],
      },
    };
    const { ack } = await submitMessage(bot, envelope("ask", A, { title, request }));
    await processNotifications(ack.id);
    const posted = teams.activities.find((a) => a.conversationId === CHANNEL && cardText(a.card).includes(title));
    const inputs = ((posted?.card.body ?? []) as Array<Record<string, unknown>>).filter((b) =>
      String(b.type).startsWith("Input."),
    );
    expect(inputs.map((i) => [i.type, i.id])).toEqual([
      ["Input.Text", "ma2h_in_reason"],
      ["Input.Number", "ma2h_in_count"],
    ]);
    expect(answerActions(posted?.card ?? {}).map((a) => a.data)).toEqual([{ ma2h: "input", m: ack.id }]);
    const reply = await invoke(ack.id, {
      handle: "mia",
      data: { ma2h: "input", m: ack.id, ma2h_in_reason: "disk full", ma2h_in_count: "3" },
    });
    expect(reply.outcome).toBe("answered");
    const row = await state(ack.id);
    expect(JSON.parse(row.resolution?.response ?? "{}").value).toEqual({ reason: "disk full", count: 3 });
    expect(row.resolution?.actor).toBe("human:mia");
  });

  it("an answer elsewhere updates the card through the notification job", async () => {
    const { id, posted } = await submit();
    await resolveMessage(
      { kind: "human", userId: await userId("pat") },
      id,
      { resolution: "answered", value: "deny" },
      {
        channel: "inbox",
      },
    );
    await processNotifications(id);
    expect(posted?.updates).toBe(1);
    expect(cardText(posted?.card ?? {})).toContain("answered: Deny — by human:pat via inbox");
    expect((await db().teamsPost.findFirstOrThrow({ where: { messageId: id } })).shownStatus).toBe("answered");
  });

  it("under a quorum a click records one approval and the card shows 1 of 2", async () => {
    const { id, posted } = await submit(deploybot, DEPLOY);
    expect(cardText(posted?.card ?? {})).toContain("0 of 2");
    const first = await invoke(id, { handle: "mia" });
    expect(first.outcome).toBe("recorded");
    expect(String(first.body?.value)).toContain("1 of 2");
    expect((await state(id)).status).toBe("open");
    expect(posted?.updates).toBe(1);
    expect(cardText(posted?.card ?? {})).toContain("1 of 2 approvals");
    expect(answerActions(posted?.card ?? {})).toHaveLength(2);
    const second = await invoke(id, { handle: "pat" });
    expect(second.outcome).toBe("answered");
    expect((await state(id)).status).toBe("answered");
    expect(cardText(posted?.card ?? {})).toContain("answered");
  });
});

describe("over HTTP", () => {
  it("the messaging endpoint refuses a forged token with 401 and answers a signed click with the card", async () => {
    const { id } = await submit();
    const forged = await post(id, { handle: "mia", stranger: true });
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ error: { code: "unauthenticated" } });
    expect((await state(id)).status).toBe("open");
    const ok = await post(id, { handle: "mia" });
    expect(ok.status).toBe(200);
    expect(ok.body?.type).toBe("application/vnd.microsoft.card.adaptive");
    expect((await state(id)).resolution?.actor).toBe("human:mia");
  });

  it("the admin page shows the bot and never the secret; the bind page asks the signed-in person to confirm", async () => {
    const res = await fetch(`${hub.url}/admin/acme/teams`, { headers: { cookie: await session("olga") } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain(BOT.appId);
    expect(html).toContain(`${hub.url}/api/teams/messages/acme`);
    expect(html).not.toContain(BOT.secret);
    const { id } = await submit();
    const unbound = await invoke(id, { handle: "ben2" });
    const path = /\/teams\/bind\/\S+/.exec(String(unbound.body?.value))?.[0] as string;
    const page = await fetch(`${hub.url}${path}`, { headers: { cookie: await session("ben") } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(aad("ben2"));
    const confirm = await fetch(`${hub.url}${path}`, {
      method: "POST",
      headers: { cookie: await session("ben"), origin: hub.url },
    });
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain("now answer as you");
    const bound = await db().teamsIdentity.findFirstOrThrow({ where: { accountId, teamsUserId: aad("ben2") } });
    expect(bound.userId).toBe(await userId("ben"));
  });
});

describe("reconnecting", () => {
  it("a new secret drops every Teams binding, audited", async () => {
    expect(await db().teamsIdentity.count({ where: { accountId } })).toBe(5);
    await connectTeams(await owner(), {
      appId: BOT.appId,
      tenantId: BOT.tenantId,
      appSecret: "acme-teams-secret-2",
      channelId: CHANNEL,
      serviceUrl: teams.serviceUrl,
    });
    expect(await db().teamsIdentity.count({ where: { accountId } })).toBe(0);
    const removed = await db().auditEvent.count({ where: { accountId, event: "teams.user_unbound" } });
    expect(removed).toBe(6); // five by the reconnect, and ben's first Teams user replaced by his second
    const { id } = await submit();
    expect((await invoke(id, { handle: "mia" })).outcome).toBe("unbound");
  });
});

describe("seats", () => {
  it("removing a person's seat removes their Teams link in that account, audited", async () => {
    await bind("pat");
    const m = await db().membership.findFirstOrThrow({ where: { accountId, handle: "pat" } });
    await removeMember(accountId, m.id, { actor: "human:olga", role: "owner" });
    expect(await db().teamsIdentity.count({ where: { accountId, userId: await userId("pat") } })).toBe(0);
    const audit = await db().auditEvent.findFirstOrThrow({
      where: { accountId, event: "teams.user_unbound" },
      orderBy: { at: "desc" },
    });
    expect(audit.detail).toMatchObject({ reason: "seat_removed", teams_user_id: aad("pat") });
  });
});
