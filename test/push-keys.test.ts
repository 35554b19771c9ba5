/**
 * One account's answers never act at another account's receiver (§9.2 across accounts). Against a
 * real web + worker: each account's pushes are signed by its own key, published under an opaque kid
 * and told to its agents by `GET /v1/agents/me`; account B, having proved control of account A's
 * receiver origin, gets an answered ask pushed there — and A's Node and Fetch push handlers and
 * `ma2h receive`, pinned to A's key id (or holding A's journal), refuse it while A's own answer is
 * acted on. Also: one origin per account unless proved (`ma2h-hub binding add`), the per-account
 * rotation, and the inter-agent opt-in an agent can read and the 422 that names it.
 */
// covers: lib/keys/signing-keys.ts, lib/principals/agent-self.ts, lib/delivery/origin-proof.ts, packages/agent/src/verify-push.ts, packages/agent/src/receivers.ts
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HubResponse } from "@ma2h/protocol/response";
import { MemorySubmitJournal } from "../packages/agent/src/journal";
import { HubKeys } from "../packages/agent/src/keys";
import { fetchPushHandler, nodePushHandler, type PushReceiverOptions } from "../packages/agent/src/receivers";
import { agentJournal } from "../packages/agent/src/cli/settings";
import { MemoryReplayStore } from "../packages/agent/src/stores";
import { VerificationError, verifyPush } from "../packages/agent/src/verify-push";
import { ma2h, tempDir } from "../packages/agent/test/cli-kit";
import { envelope } from "./support/envelope";
import { useHubFixture } from "./support/hub-fixture";
import { cli, resolveAs, submitPush } from "./support/push-kit";
import type { Received } from "./support/receiver";

const A = "deploybot";
const B = "intruder";
const PROOF = "/.well-known/ma2h-callback-proof";

const hub = useHubFixture({
  accounts: {
    acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] },
    globex: { agents: [B], humans: [{ handle: "bob", role: "owner" }] },
  },
  receivers: 1,
  server: "pair",
  env: (h) => ({ MA2H_DEV_CALLBACK_ALLOWLIST: h.receiver.origin, MA2H_PUSH_BASE_DELAY_MS: "500" }),
});
const acme = hub.account("acme");
const globex = hub.account("globex");
const devEnv = () => ({ MA2H_DEV_MODE: "1", MA2H_DEV_CALLBACK_ALLOWLIST: hub.receiver.origin });

async function me(key: string) {
  const res = await fetch(`${hub.url}/v1/agents/me`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A's receiver URL: both accounts' asks name it. */
const target = () => `${hub.receiver.origin}/a/receiver`;

describe("GET /v1/agents/me and the keys document", () => {
  it("tells each agent its own account's push key id, published under an opaque kid", async () => {
    const a = await me(acme.keys[A]!);
    const b = await me(globex.keys[B]!);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      agent: { id: A },
      push_signing: { keys_url: `${hub.url}/.well-known/ma2h-keys` },
      inter_agent: { enabled: false, account_opted_in: false, hub_allows: true },
    });
    expect(a.body.push_signing.key_ids).toEqual([a.body.push_signing.key_id]);
    expect(b.body.push_signing.key_id).not.toBe(a.body.push_signing.key_id);

    const doc = await fetch(`${hub.url}/.well-known/ma2h-keys`);
    const text = await doc.text();
    const kids = (JSON.parse(text) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([a.body.push_signing.key_id, b.body.push_signing.key_id]));
    // The Hub-wide key (directives, entries) is there too, and no account is named anywhere.
    expect(kids.length).toBeGreaterThanOrEqual(3);
    expect(text).not.toMatch(/acme|globex|deploybot|intruder/);
  });

  it("answers only an agent credential: an operator token is 401, no credential 401", async () => {
    const pat = await fetch(`${hub.url}/v1/agents/me`, { headers: { authorization: `Bearer ${acme.tokens.alice}` } });
    expect(pat.status).toBe(401);
    expect(((await pat.json()) as any).error.code).toBe("unauthenticated");
    expect((await fetch(`${hub.url}/v1/agents/me`)).status).toBe(401);
  });

  it("says whether the inter-agent leg is on for the account; the 422 of a non-opted-in account says so", async () => {
    const refused = await hub.agent(A, "acme").post("/v1/messages", envelope("notify", A, { to: `agent:${A}` }));
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("invalid_field");
    expect(refused.body.error.message).toMatch(/this account has not opted in to the inter-agent leg/);
    expect(refused.body.error.message).toContain("GET /v1/agents/me");

    const on = await cli(hub.databaseUrl, ["account", "set", "acme", "--inter-agent", "on"]);
    expect(on.code, on.stderr).toBe(0);
    expect((await me(acme.keys[A]!)).body.inter_agent).toEqual({
      enabled: true,
      account_opted_in: true,
      hub_allows: true,
    });
    expect((await me(globex.keys[B]!)).body.inter_agent.enabled).toBe(false);
    const off = await cli(hub.databaseUrl, ["account", "set", "acme", "--inter-agent", "off"]);
    expect(off.code, off.stderr).toBe(0);
  });
});

describe("one callback origin, one account", () => {
  it("refuses binding an origin another account binds until the proof is served at the origin", async () => {
    const add = (slug: string, agent: string) =>
      cli(
        hub.databaseUrl,
        [
          "binding",
          "add",
          "--agent",
          agent,
          "--account",
          slug,
          "--origin",
          hub.receiver.origin,
          "--secret-ref",
          "cb",
          "--secret",
          "s3cret-value",
        ],
        devEnv(),
      );
    expect((await add("acme", A)).code).toBe(0);
    // Another agent of the SAME account may bind it as well: the rule is between accounts.
    const refused = await add("globex", B);
    expect(refused.code).not.toBe(0);
    const message = refused.json.error.message as string;
    expect(refused.json.error.code).toBe("not_authorized");
    expect(message).toContain(`${hub.receiver.origin}${PROOF}`);
    const token = /"(ma2h-callback-proof=[A-Za-z0-9_-]+)"/.exec(message)?.[1];
    expect(token).toBeDefined();
    const listed = await cli(hub.databaseUrl, ["binding", "list", "--agent", B, "--account", "globex"]);
    expect(listed.json.bindings).toEqual([]);

    // A wrong token, then the right one among others (several accounts may list theirs).
    hub.receiver.script(PROOF, [{ status: 200, body: "ma2h-callback-proof=not-this-one\n" }]);
    expect((await add("globex", B)).code).not.toBe(0);
    hub.receiver.script(PROOF, [], { status: 200, body: `ma2h-callback-proof=someone-else\n${token}\n` });
    const proved = await add("globex", B);
    expect(proved.code, JSON.stringify(proved.json)).toBe(0);
    expect(hub.receiver.at(PROOF).every((r) => r.method === "GET")).toBe(true);
  });
});

describe("B's answered ask pushed to A's receiver", () => {
  let kidA: string;
  let pushA: Received;
  let pushB: Received;
  let idA: string;
  let idB: string;
  let nodeServer: http.Server;
  let nodeUrl: string;
  const nodeActed: HubResponse[] = [];
  const nodeRefused: string[] = [];

  beforeAll(async () => {
    kidA = (await me(acme.keys[A]!)).body.push_signing.key_id;
    // Both asks name A's receiver URL with no auth: ed25519-signed pushes (§9.2).
    // No `state`: `ma2h receive` would need the agent's §9.3 key to open it.
    const bare = { over: { state: undefined } };
    idA = (await submitPush(hub.url, acme.keys[A]!, A, target(), null, bare)).id;
    idB = (await submitPush(hub.url, globex.keys[B]!, B, target(), null, bare)).id;
    await resolveAs(hub.url, acme.tokens.alice!, idA, { resolution: "answered", value: "ship" });
    await resolveAs(hub.url, globex.tokens.bob!, idB, { resolution: "answered", value: "ship" });
    const pushes = await hub.receiver.waitFor("/a/receiver", 2, 30_000);
    const of = (id: string) => pushes.find((p) => (JSON.parse(p.body) as HubResponse).in_reply_to === id)!;
    pushA = of(idA);
    pushB = of(idB);

    nodeServer = http.createServer(
      nodePushHandler({
        ...pinned(),
        onResponse: (r) => void nodeActed.push(r),
        onError: (e) => nodeRefused.push(e instanceof VerificationError ? e.reason : String(e)),
      }),
    );
    await new Promise<void>((ok) => nodeServer.listen(0, "127.0.0.1", () => ok()));
    nodeUrl = `http://127.0.0.1:${(nodeServer.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await new Promise<void>((ok) => (nodeServer ? nodeServer.close(() => ok()) : ok()));
  });

  function pinned(over: Partial<PushReceiverOptions> = {}) {
    return {
      callbackUrl: target(),
      hubKeys: new HubKeys(hub.url),
      keyId: kidA,
      replayStore: new MemoryReplayStore(),
      ...over,
    } as PushReceiverOptions;
  }

  const headersOf = (p: Received) => ({ "ma2h-signature": String(p.headers["ma2h-signature"]) });

  it("is signed by the same Hub, so a receiver that pins nothing accepts it: the hole pinning closes", async () => {
    const unpinned = { callbackUrl: target(), hubUrl: hub.url, replayStore: new MemoryReplayStore() };
    expect((await verifyPush(headersOf(pushB), pushB.body, unpinned)).in_reply_to).toBe(idB);
  });

  it("verifyPush with A's key id refuses it (unexpected_key) and accepts A's own", async () => {
    const options = { callbackUrl: target(), hubUrl: hub.url, keyId: kidA, replayStore: new MemoryReplayStore() };
    await expect(verifyPush(headersOf(pushB), pushB.body, options)).rejects.toMatchObject({ reason: "unexpected_key" });
    expect((await verifyPush(headersOf(pushA), pushA.body, options)).in_reply_to).toBe(idA);
  });

  it("A's Node push handler refuses it with 401 and never acts; A's own answer is acted on", async () => {
    const post = (p: Received) =>
      fetch(nodeUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...headersOf(p) },
        body: p.body,
      });
    expect((await post(pushB)).status).toBe(401);
    expect(nodeRefused).toEqual(["unexpected_key"]);
    expect(nodeActed).toEqual([]);
    expect((await post(pushA)).status).toBe(200);
    expect(nodeActed.map((r) => r.in_reply_to)).toEqual([idA]);
  });

  it("A's Fetch push handler refuses it with 401 and never acts; A's own answer is acted on", async () => {
    const acted: HubResponse[] = [];
    const handler = fetchPushHandler({ ...pinned(), onResponse: (r) => void acted.push(r) });
    const request = (p: Received) =>
      new Request(target(), {
        method: "POST",
        headers: { "content-type": "application/json", ...headersOf(p) },
        body: p.body,
      });
    const refused = await handler(request(pushB));
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      error: { code: "unauthenticated", message: "the push failed verification" },
    });
    expect(acted).toEqual([]);
    expect((await handler(request(pushA))).status).toBe(200);
    expect(acted.map((r) => r.in_reply_to)).toEqual([idA]);
  });

  it("with A's journal and no key id, the handlers refuse an answer to a message A never sent (not_sent)", async () => {
    const journal = new MemorySubmitJournal();
    await journal.save("k-a", "{}");
    await journal.complete("k-a", { id: idA, status: "open" } as never);
    const reasons: string[] = [];
    const acted: string[] = [];
    const handler = fetchPushHandler({
      callbackUrl: target(),
      hubUrl: hub.url,
      journal,
      replayStore: new MemoryReplayStore(),
      onResponse: (r) => void acted.push(r.in_reply_to),
      onError: (e) => reasons.push(e instanceof VerificationError ? e.reason : String(e)),
    });
    const request = (p: Received) => new Request(target(), { method: "POST", headers: headersOf(p), body: p.body });
    expect((await handler(request(pushB))).status).toBe(401);
    expect(reasons).toEqual(["not_sent"]);
    expect((await handler(request(pushA))).status).toBe(200);
    expect(acted).toEqual([idA]);
  });

  it("ma2h receive with --key-id (or MA2H_KEY_ID) refuses it, exit 5; with --journal too; A's own is received", async () => {
    const store = tempDir("push-keys");
    const receive = (p: Received, args: string[], env: Record<string, string> = {}) =>
      ma2h(
        [
          "receive",
          "--body",
          "-",
          "--signature",
          String(p.headers["ma2h-signature"]),
          "--callback-url",
          target(),
          ...args,
        ],
        { MA2H_URL: hub.url, MA2H_STORE_DIR: join(store, String(Math.random())), ...env },
        p.body,
      );
    const byFlag = await receive(pushB, ["--key-id", kidA]);
    expect(byFlag.code).toBe(5);
    expect(byFlag.stderr).toMatch(/verification_failed: .*unexpected_key/);
    expect(byFlag.stdout).toBe("");
    const byEnv = await receive(pushB, [], { MA2H_KEY_ID: `other-kid,${kidA}` });
    expect(byEnv.code).toBe(5);

    // The journal `ma2h ask` keeps for agent A in the store: it holds A's ask only.
    const journalStore = join(store, "journal-store");
    const journal = agentJournal({
      positionals: [],
      strings: { store: journalStore, "agent-id": A },
      booleans: {},
      lists: {},
      help: false,
    });
    await journal.save("k-a", "{}");
    await journal.complete("k-a", { id: idA, status: "open" } as never);
    const env = { MA2H_STORE_DIR: journalStore, MA2H_AGENT_ID: A };
    const notSent = await receive(pushB, ["--journal"], env);
    expect(notSent.code).toBe(5);
    expect(notSent.stderr).toMatch(/not_sent/);

    const own = await receive(pushA, ["--key-id", kidA, "--journal"], env);
    expect(own.code, own.stderr).toBe(0);
    expect((JSON.parse(own.stdout) as { response: HubResponse }).response.in_reply_to).toBe(idA);
  }, 60_000);
});

describe("rotation per account", () => {
  it("signing-key rotate --account changes that account's push key only; the previous stays listed", async () => {
    const before = {
      a: (await me(acme.keys[A]!)).body.push_signing,
      b: (await me(globex.keys[B]!)).body.push_signing,
    };
    const rotated = await cli(hub.databaseUrl, ["signing-key", "rotate", "--account", "globex"]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.json.key).toMatchObject({ account: "globex" });
    const newKid = rotated.json.key.kid as string;
    // Each process caches the active key for a few seconds.
    await expect
      .poll(async () => (await me(globex.keys[B]!)).body.push_signing.key_id, { timeout: 15_000 })
      .toBe(newKid);
    expect((await me(globex.keys[B]!)).body.push_signing.key_ids).toEqual([newKid, before.b.key_id]);
    expect((await me(acme.keys[A]!)).body.push_signing).toEqual(before.a);
    const unknown = await cli(hub.databaseUrl, ["signing-key", "rotate", "--account", "nope"]);
    expect(unknown.json.error.code).toBe("not_found");
  });
});
