/**
 * The SDK's push receivers against the real Hub (web + worker): the Hub pushes to a Node `http`
 * server running nodePushHandler and to one running fetchPushHandler behind a small node → Fetch
 * bridge. Through both: the genuine push is acted on once; the captured push replayed with a wrong
 * key, a tampered value, a flipped `edited` (a v0.6 allow_edit ask), a stale `t` and its own `jti`
 * again is refused with 401 and never reaches onResponse; a fresh-signed duplicate is 200 without
 * acting; a throwing onResponse answers 500 and the Hub's retry is acted on. ed25519 (no-auth
 * callback) is verified through HubKeys → `signing_keys_url`, and after `ma2h-hub signing-key
 * rotate --account` the cached key fails once and the refetched one verifies.
 */
// covers: packages/agent/src/receivers.ts, packages/agent/src/keys.ts, packages/agent/src/verify-push.ts
import http, { type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { addBinding } from "../../../lib/principals/bindings";
import type { HubResponse } from "@ma2h/protocol/response";
import { signResponsePush } from "@ma2h/protocol/signing";
import { HubKeys } from "../src/keys";
import { fetchPushHandler, nodePushHandler, type PushReceiverOptions } from "../src/receivers";
import { FileDedupStore, MemoryReplayStore, responseDedupKey } from "../src/stores";
import { VerificationError } from "../src/verify-push";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { type Auth, cli, resolveAs, submitPush } from "../../../test/support/push-kit";
import { elapse, waitFor } from "../../../test/support/wait";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const A = "deploybot/dev-team";
const SECRET = "receiver-secret-Ω ";
const HMAC: Auth = { scheme: "hmac", secret_ref: "cb" };
const OPTIONS = [
  { value: "ship", label: "Ship" },
  { value: "hold", label: "Hold" },
];
const OFF_MENU = "hold until the migration lands";

type Kind = "node" | "fetch";
interface Captured {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A loopback server per adapter kind: handlers mounted by path, every request captured raw. */
interface AdapterServer {
  origin: string;
  captured: Captured[];
  mount(path: string, options: PushReceiverOptions): void;
  close(): Promise<void>;
}

async function startAdapterServer(kind: Kind): Promise<AdapterServer> {
  const captured: Captured[] = [];
  const node = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  const fetchers = new Map<string, (r: Request) => Promise<Response>>();
  const flat = (req: IncomingMessage) =>
    Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v ?? "")]),
    );

  const server: Server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const chunks: Buffer[] = [];
    // Tee the raw bytes for the replays below; the adapter reads the same stream.
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => captured.push({ path, headers: flat(req), body: Buffer.concat(chunks).toString("utf8") }));
    if (kind === "node") {
      const handler = node.get(path);
      if (handler) handler(req, res);
      else res.writeHead(404).end();
      return;
    }
    const handler = fetchers.get(path);
    if (!handler) {
      res.writeHead(404).end();
      return;
    }
    req.on("end", async () => {
      // The bridge: node request → Fetch Request → the handler → node response.
      const headers = new Headers();
      for (const [k, v] of Object.entries(flat(req)))
        if (!["host", "connection", "content-length", "transfer-encoding", "keep-alive"].includes(k)) headers.set(k, v);
      const method = req.method ?? "GET";
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method,
        headers,
        body: method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks),
      });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", () => ok()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    captured,
    mount(path, options) {
      if (kind === "node") node.set(path, nodePushHandler(options));
      else fetchers.set(path, fetchPushHandler(options));
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

const adapters = {} as Record<Kind, AdapterServer>;

const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  setup: async () => {
    for (const kind of ["node", "fetch"] as const) {
      adapters[kind] = await startAdapterServer(kind);
      await addBinding({
        agentRef: { agentId: A, accountSlug: "acme" },
        origin: adapters[kind].origin,
        secretRef: "cb",
        secret: SECRET,
      });
    }
  },
  server: "pair",
  env: () => ({
    MA2H_DEV_CALLBACK_ALLOWLIST: `${adapters.node.origin},${adapters.fetch.origin}`,
    MA2H_PUSH_BASE_DELAY_MS: "500",
  }),
});
const acme = hub.account("acme");

/** One mounted receiver: what it acted on and what it refused (VerificationError reasons). */
function receiver(kind: Kind, path: string, over: Partial<PushReceiverOptions> = {}) {
  const acted: HubResponse[] = [];
  const refused: string[] = [];
  const url = `${adapters[kind].origin}${path}`;
  adapters[kind].mount(path, {
    callbackUrl: url,
    replayStore: new MemoryReplayStore(),
    onResponse: (r) => void acted.push(r),
    onError: (e) => refused.push(e instanceof VerificationError ? e.reason : String(e)),
    ...(over.hubUrl || over.hubKeys ? {} : { hmacSecret: SECRET }),
    ...over,
  } as PushReceiverOptions);
  return { url, path, acted, refused };
}

const until = <T>(what: string, get: () => T | undefined) => waitFor(get, { what, timeout: 20_000 });

const askOver = {
  ma2h_version: "0.6",
  request: { mode: "select", options: OPTIONS, permissions: { allow_edit: true } },
};

/** Submits an allow_edit ask pushing to `url`, resolves it off-menu (edited: true), returns its id. */
async function answered(url: string, auth: Auth = HMAC): Promise<string> {
  const sent = await submitPush(hub.url, acme.keys[A] as string, A, url, auth, { over: askOver, name: url });
  await resolveAs(hub.url, acme.tokens.alice as string, sent.id, { resolution: "answered", value: OFF_MENU });
  return sent.id;
}

/** POSTs a captured (or altered) push at a receiver the way the Hub does. */
async function replay(url: string, headers: Record<string, string>, body: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "ma2h-signature": headers["ma2h-signature"] ?? "" },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe.each(["node", "fetch"] as const)("%s adapter", (kind) => {
  it("acts on the genuine hmac push once and refuses its wrong-key, tampered, flipped, stale and replayed copies", async () => {
    const rx = receiver(kind, `/hmac/${kind}`);
    const id = await answered(rx.url);
    const [got] = await until("the push", () => (rx.acted.length ? rx.acted : undefined));
    expect(got).toMatchObject({ in_reply_to: id, resolution: "answered", ma2h_version: "0.6" });
    expect(got!.response).toMatchObject({ value: OFF_MENU, edited: true, actor: "human:alice" });
    const push = adapters[kind].captured.find((c) => c.path === rx.path)!;
    expect(push.headers["ma2h-signature"]).toMatch(/^t=\d+,jti=/);

    const altered = (mutate: (b: Record<string, any>) => void) => {
      const b = JSON.parse(push.body);
      mutate(b);
      return JSON.stringify(b);
    };
    // Each copy goes to a receiver of the same callback URL with a fresh jti store, so only the
    // alteration under test can refuse it.
    const fresh = (label: string, over: Partial<PushReceiverOptions> = {}) =>
      receiver(kind, `/hmac/${kind}/${label}`, { callbackUrl: rx.url, ...over } as Partial<PushReceiverOptions>);
    const cases: Array<[string, ReturnType<typeof fresh>, string, string]> = [
      ["wrong key", fresh("wrong-key", { hmacSecret: "not-the-secret" }), push.body, "signature_mismatch"],
      ["tampered value", fresh("value"), altered((b) => (b.response.value = "ship")), "signature_mismatch"],
      ["flipped edited", fresh("edited"), altered((b) => (b.response.edited = false)), "signature_mismatch"],
      [
        "stale t (arrives 200 s late)",
        fresh("stale", { now: () => new Date(Date.now() + 200_000) }),
        push.body,
        "outside_window",
      ],
    ];
    for (const [name, target, body, reason] of cases) {
      const res = await replay(`${adapters[kind].origin}${target.path}`, push.headers, body);
      expect([name, res.status, res.body.error?.code]).toEqual([name, 401, "unauthenticated"]);
      expect(target.refused, name).toEqual([reason]);
      expect(target.acted, name).toEqual([]);
    }
    // The very same bytes again at the receiver that acted: its jti is spent.
    const again = await replay(rx.url, push.headers, push.body);
    expect(again.status).toBe(401);
    expect(rx.refused).toEqual(["replayed"]);
    expect(rx.acted).toHaveLength(1);

    // A redelivery the Hub signs afresh (new t and jti, same resolution) is a duplicate: 200, not acted on.
    const redelivered = signResponsePush({
      response: JSON.parse(push.body),
      callbackUrl: rx.url,
      key: { alg: "hmac-sha256", secret: SECRET },
      now: new Date(),
    });
    const dup = await replay(rx.url, { "ma2h-signature": redelivered.header }, push.body);
    expect([dup.status, dup.body]).toEqual([200, { ok: true, duplicate: true }]);
    expect(rx.acted).toHaveLength(1);
  });

  it("a throwing onResponse answers 500, releases the reservation, and the Hub's retry is acted on", async () => {
    const dedupStore = new FileDedupStore(join(mkdtempSync(join(tmpdir(), "ma2h-rx-")), "dedup"));
    let calls = 0;
    const acted: HubResponse[] = [];
    const path = `/flaky/${kind}`;
    const url = `${adapters[kind].origin}${path}`;
    adapters[kind].mount(path, {
      callbackUrl: url,
      hmacSecret: SECRET,
      dedupStore,
      onResponse: (r) => {
        calls++;
        if (calls === 1) throw new Error("disk full");
        acted.push(r);
      },
    });
    const id = await answered(url);
    await until("the retry", () => (acted.length ? acted : undefined));
    expect(calls).toBe(2);
    expect(acted[0]!.in_reply_to).toBe(id);
    expect(adapters[kind].captured.filter((c) => c.path === path)).toHaveLength(2); // one retry, no more
    expect(await dedupStore.has(responseDedupKey(acted[0]!))).toBe(true);
  });

  it("verifies an ed25519 push (no-auth callback) with the keys found through signing_keys_url", async () => {
    const fetched: string[] = [];
    const counting: typeof fetch = (input, init) => {
      fetched.push(String(input));
      return fetch(input, init);
    };
    const rx = receiver(kind, `/ed/${kind}`, { hubUrl: hub.url, fetch: counting });
    const id = await answered(rx.url, null);
    const [got] = await until("the push", () => (rx.acted.length ? rx.acted : undefined));
    expect(got!.in_reply_to).toBe(id);
    expect(fetched).toEqual([`${hub.url}/.well-known/ma2h`, `${hub.url}/.well-known/ma2h-keys`]);
    // The same push checked against hmac instead is refused: one scheme per receiver.
    const push = adapters[kind].captured.find((c) => c.path === rx.path)!;
    const hmacOnly = receiver(kind, `/ed/${kind}/as-hmac`, { callbackUrl: rx.url } as Partial<PushReceiverOptions>);
    expect((await replay(`${adapters[kind].origin}${hmacOnly.path}`, push.headers, push.body)).status).toBe(401);
    expect(hmacOnly.refused).toEqual(["signature_mismatch"]);
  });

  it("answers 405 to anything but POST and 413 to a body over the cap, without acting", async () => {
    const rx = receiver(kind, `/limits/${kind}`, { maxBodyBytes: 1024 });
    const get = await fetch(rx.url);
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    expect((await get.json()).error.code).toBe("validation_error");
    const big = await fetch(rx.url, { method: "POST", body: "x".repeat(4096) });
    expect(big.status).toBe(413);
    expect(rx.acted).toEqual([]);
  });
});

describe("key rotation", () => {
  it("after `ma2h-hub signing-key rotate --account` the cached key fails once and the refetched one verifies", async () => {
    const jwksFetches: string[] = [];
    const keys = new HubKeys(hub.url, {
      fetch: (input, init) => {
        if (String(input).endsWith("/ma2h-keys")) jwksFetches.push(String(input));
        return fetch(input, init);
      },
    });
    const before = receiver("node", "/rot/before", { hubKeys: keys });
    await answered(before.url, null);
    await until("the first push", () => (before.acted.length ? before.acted : undefined));
    expect(jwksFetches).toHaveLength(1);
    const cached = keys.peek()!;

    const rotated = await cli(hub.databaseUrl, ["signing-key", "rotate", "--account", "acme"]);
    expect(rotated.code, rotated.stderr).toBe(0);
    await elapse(5500, "the Hub's processes cache the active signing key for up to 5 s; no clock reaches into them");

    const after = receiver("fetch", "/rot/after", { hubKeys: keys });
    await answered(after.url, null);
    const [got] = await until("the push after the rotation", () => (after.acted.length ? after.acted : undefined));
    expect(got!.resolution).toBe("answered");
    expect(after.refused).toEqual([]);
    expect(jwksFetches).toHaveLength(2); // the cached key failed once, one refetch
    expect(keys.peek()!.length).toBe(cached.length + 1); // the new key, and the old one for the overlap
  });
});
