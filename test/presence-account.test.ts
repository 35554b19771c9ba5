/**
 * §15.3 presence is per account: agent ids are unique per account only, so the read names the
 * account (`?account=<slug>`) and a same-named agent of another account never stands in for this
 * one. A person seated in both reads each separately; an account without their seat is 404 (the same
 * as one that does not exist); several seats and no `?account=` is a 400 naming the parameter; one
 * seat needs none. Over HTTP against the built web, PATs and a browser session.
 */
// covers: lib/presence/read.ts, lib/http/routes/agents.ts
import { describe, expect, it } from "vitest";
import { db } from "../lib/db";
import { createToken } from "../lib/principals/tokens";
import { addUser } from "../lib/principals/users";
import { createWebSession, SESSION_COOKIE_NAMES } from "../lib/principals/web-sessions";
import { client } from "./support/hub";
import { useHubFixture } from "./support/hub-fixture";
import { validateOfficial } from "./support/spec";

const A = "deploybot/dev-team"; // in both accounts
let carolToken: string;
const hub = useHubFixture({
  server: "in-process",
  accounts: {
    acme: { agents: [A], humans: [{ handle: "dave", role: "member" }] },
    globex: { agents: [A], humans: [{ handle: "gina", role: "owner" }] },
    initech: { agents: ["triage-bot"], humans: [{ handle: "ida", role: "owner" }] },
  },
  setup: async () => {
    // carol holds seats in acme (viewer) and globex (member).
    await addUser("carol@both.test", "acme", "carol", "viewer");
    await addUser("carol@both.test", "globex", "carol", "member");
    carolToken = (await createToken("carol@both.test")).token;
  },
});

const path = (id: string, account?: string) =>
  `/v1/agents/${encodeURIComponent(id)}/presence${account === undefined ? "" : `?account=${account}`}`;
const carol = () => client(hub.url, carolToken);

/** acme's agent seen just now (online); globex's same-named agent seen an hour ago (offline). */
async function stamp(): Promise<void> {
  const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
  const globex = await db().account.findUniqueOrThrow({ where: { slug: "globex" } });
  await db().agent.update({
    where: { accountId_agentId: { accountId: acme.id, agentId: A } },
    data: { lastSeenAt: new Date() },
  });
  await db().agent.update({
    where: { accountId_agentId: { accountId: globex.id, agentId: A } },
    data: { lastSeenAt: new Date(Date.now() - 3_600_000) },
  });
}

describe("presence names its account", () => {
  it("a person in both accounts reads each same-named agent separately and correctly", async () => {
    await stamp();
    const inAcme = await carol().get(path(A, "acme"));
    const inGlobex = await carol().get(path(A, "globex"));
    expect([inAcme.status, inGlobex.status]).toEqual([200, 200]);
    expect(inAcme.body.state).toBe("online");
    expect(inGlobex.body.state).toBe("offline");
    expect(Date.parse(inGlobex.body.last_seen)).toBeLessThan(Date.now() - 3_000_000);
    for (const b of [inAcme.body, inGlobex.body]) expect(validateOfficial("presence.schema.json", b)).toEqual([]);
    // Now globex's is the fresh one: each read still follows its own account.
    const globex = await db().account.findUniqueOrThrow({ where: { slug: "globex" } });
    const acme = await db().account.findUniqueOrThrow({ where: { slug: "acme" } });
    await db().agent.update({
      where: { accountId_agentId: { accountId: globex.id, agentId: A } },
      data: { lastSeenAt: new Date() },
    });
    await db().agent.update({
      where: { accountId_agentId: { accountId: acme.id, agentId: A } },
      data: { lastSeenAt: null },
    });
    expect((await carol().get(path(A, "acme"))).body).toEqual({
      agent_id: A,
      state: "unknown",
      freshness_seconds: expect.any(Number),
      sessions: [],
    });
    expect((await carol().get(path(A, "globex"))).body.state).toBe("online");
  });

  it("an account she is not in is 404, the same as one that does not exist — whatever the agent", async () => {
    await stamp();
    const theirs = await carol().get(path("triage-bot", "initech"));
    const none = await carol().get(path("triage-bot", "no-such-account"));
    const theirsOther = await carol().get(path(A, "initech"));
    for (const r of [theirs, none, theirsOther]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    expect(theirs.body.error.message).toBe(theirsOther.body.error.message);
    // dave (acme only) cannot read globex's agent through the shared id either.
    const dave = hub.human("dave", "acme");
    expect((await dave.get(path(A, "globex"))).status).toBe(404);
  });

  it("seats in several accounts and no ?account= is a 400 naming the parameter; one seat needs none", async () => {
    await stamp();
    const res = await carol().get(path(A));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    expect(res.body.error.message).toMatch(/^account: /);
    const empty = await carol().get(`${path(A)}?account=`);
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/^account: /);
    // dave has one seat (acme): his only account; gina's is globex's agent.
    expect((await hub.human("dave", "acme").get(path(A))).body.state).toBe("online");
    expect((await hub.human("gina", "globex").get(path(A))).body.state).toBe("offline");
    // An id unknown in the named account is §15.3's unknown body.
    expect((await carol().get(path("nobody/here", "acme"))).body).toEqual({
      agent_id: "nobody/here",
      state: "unknown",
      freshness_seconds: expect.any(Number),
      sessions: [],
    });
  });

  it("the inbox session cookie reads per account too; an agent key stays 403 before anything", async () => {
    await stamp();
    const user = await db().user.findUniqueOrThrow({ where: { email: "carol@both.test" } });
    const token = `sess-presence-${Date.now()}`;
    await createWebSession(user.id, token, new Date(Date.now() + 3_600_000));
    const viaCookie = (account: string) =>
      fetch(`${hub.url}${path(A, account)}`, { headers: { cookie: `${SESSION_COOKIE_NAMES[1]}=${token}` } }).then(
        async (r) => ({ status: r.status, body: await r.json() }),
      );
    expect((await viaCookie("acme")).body.state).toBe("online");
    expect((await viaCookie("globex")).body.state).toBe("offline");
    expect((await viaCookie("initech")).status).toBe(404);
    for (const account of ["acme", "globex", "initech"]) {
      const res = await hub.agent(A, "acme").get(path(A, account));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("not_authorized");
    }
  });
});
