/**
 * §2.1 end to end with the `ma2h` command and the real Hub (web + worker): run #1 asks with
 * --detach, a push callback and sealed state, and exits; a person resolves with a PAT; the signed
 * push reaches a local re-invoke endpoint that starts run #2 (`ma2h receive`), which verifies,
 * opens the state and acts exactly once. The same push again, or the same answer re-signed with a
 * fresh jti, makes run #2 exit 6 and act zero times; a tampered state blob is refused (5); a
 * tampered signature is refused by `ma2h verify` (5). And a crash between submit and ack, rerun
 * with the same --idempotency-key, recovers the same id from the journaled bytes.
 */
// covers: packages/agent/src/cli/receive.ts, packages/agent/src/cli/ask.ts, packages/agent/src/state.ts, packages/agent/src/journal.ts
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import http, { type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { addBinding } from "../../../lib/principals/bindings";
import { signResponsePush } from "@ma2h/protocol/signing";
import { sealState } from "../src/state";
import { useHubFixture } from "../../../test/support/hub-fixture";
import { envelope } from "../../../test/support/provision";
import { waitFor } from "../../../test/support/wait";
import { errorLine, ma2h, type Run, start, tempDir } from "./cli-kit";

const A = "deploybot/dev-team";
const SECRET = "callback-secret-for-the-resume-test-Ω";
const STATE_KEY = "state-key-0123456789abcdef0123456789abcdef";
const dir = tempDir("resume");
const acts = join(dir, "acts.jsonl");

/** One re-invocation: the request the Hub pushed and what run #2 did with it. */
interface Invocation {
  path: string;
  /** Path and query, as requested. */
  target: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  run: Run;
}
const invocations: Invocation[] = [];
let reinvoke: Server;
let origin = "";

/**
 * The re-invoke endpoint: each POST starts a fresh `ma2h receive` (run #2) with the pushed bytes on
 * stdin; on exit 0 it "acts" — appends the answer and the opened state to acts.jsonl. Its own store
 * (replay cache, dedup) is a directory that outlives every run #2.
 */
function startReinvoke(): Promise<void> {
  reinvoke = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? "/", origin);
      const ed25519 = url.searchParams.get("scheme") === "ed25519";
      const runEnv = {
        MA2H_STORE_DIR: join(dir, "run2-store"),
        MA2H_STATE_KEY: STATE_KEY,
        ...(ed25519 ? { MA2H_URL: hub.url } : { MA2H_CALLBACK_SECRET: SECRET }),
      };
      const run = await start(
        ["receive", "--body", "-", "--signature", String(req.headers["ma2h-signature"]), "--callback-url", url.href],
        runEnv,
        body,
      ).done;
      if (run.code === 0) appendFileSync(acts, run.stdout);
      invocations.push({ path: url.pathname, target: `${url.pathname}${url.search}`, headers: req.headers, body, run });
      // A refused push is the sender's problem (4xx, never retried); a replay was handled already.
      res.writeHead(run.code === 0 || run.code === 6 ? 200 : 400).end();
    });
  });
  return new Promise((ok) =>
    reinvoke.listen(0, "127.0.0.1", () => {
      origin = `http://127.0.0.1:${(reinvoke.address() as AddressInfo).port}`;
      ok();
    }),
  );
}

const hub = useHubFixture({
  accounts: { acme: { agents: [A], humans: [{ handle: "alice", role: "owner" }] } },
  server: "pair",
  setup: async () => {
    await startReinvoke();
    await addBinding({ agentRef: { agentId: A, accountSlug: "acme" }, origin, secretRef: "cb", secret: SECRET });
  },
  env: () => ({ MA2H_DEV_CALLBACK_ALLOWLIST: origin, MA2H_PUSH_BASE_DELAY_MS: "500" }),
});
const acme = hub.account("acme");
afterAll(() => new Promise<void>((ok) => reinvoke.close(() => ok())));

const run1Env = (store = join(dir, "run1-store")) => ({
  MA2H_URL: hub.url,
  MA2H_API_KEY: acme.keys[A],
  MA2H_AGENT_ID: A,
  MA2H_STORE_DIR: store,
  MA2H_STATE_KEY: STATE_KEY,
});
const resolve = async (id: string, body: Record<string, unknown>) => {
  const res = await hub.human("alice", "acme").post(`/v1/messages/${id}/resolve`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const actsNow = () =>
  existsSync(acts)
    ? readFileSync(acts, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l))
    : [];

async function invocationsAt(path: string, n: number, timeoutMs = 20_000): Promise<Invocation[]> {
  const at = () => invocations.filter((i) => i.path === path);
  return waitFor(() => (at().length >= n ? at() : undefined), { timeout: timeoutMs }).catch(() => {
    throw new Error(`expected ${n} re-invocation(s) at ${path}, got ${at().length}`);
  });
}

/** POSTs a recorded push to the re-invoke endpoint again, byte for byte (an attacker's replay). */
async function repost(inv: Invocation, headers: Record<string, string> = {}, body: Buffer = inv.body) {
  const res = await fetch(`${origin}${inv.target}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "ma2h-signature": String(inv.headers["ma2h-signature"]),
      ...headers,
    },
    body: new Uint8Array(body),
  });
  await res.arrayBuffer();
}

describe("§2.1: ask, exit, resume on the push, act once", () => {
  it("run #1 exits; the person answers; run #2 verifies, opens the state and acts exactly once; replays exit 6", async () => {
    const stateFile = join(dir, "state.json");
    writeFileSync(stateFile, JSON.stringify({ pr: 42, branch: "release/2.1", note: "résumé ✓" }));
    const callback = `${origin}/resume/hmac?run=1`;
    const run1 = await ma2h(
      [
        "ask",
        "confirm",
        "Deploy PR 42?",
        "--detach",
        "--callback",
        callback,
        "--secret-ref",
        "cb",
        "--state",
        stateFile,
      ],
      run1Env(),
    );
    expect(run1.code, run1.stderr).toBe(0);
    const id = run1.stdout.trim();
    expect(id).toMatch(/^msg_/u);
    // What the Hub holds is sealed: none of the state's content is readable there (§9.3).
    const held = await hub.agent(A, "acme").get(`/v1/messages/${id}`);
    expect(held.body.request.callback).toEqual({
      mode: "push",
      url: callback,
      auth: { scheme: "hmac", secret_ref: "cb" },
    });
    const heldState = JSON.stringify(held.body.state);
    for (const plain of ["release/2.1", "résumé", "branch"]) expect(heldState).not.toContain(plain);

    await resolve(id, { resolution: "answered", value: "approve", comment: "ship it" });
    const [first] = await invocationsAt("/resume/hmac", 1);
    expect(first!.run.code, first!.run.stderr).toBe(0);
    const printed = JSON.parse(first!.run.stdout);
    expect(printed.state).toEqual({ pr: 42, branch: "release/2.1", note: "résumé ✓" });
    expect(printed.response).toMatchObject({
      in_reply_to: id,
      resolution: "answered",
      response: { value: "approve", actor: "human:alice", comment: "ship it" },
    });
    expect(actsNow()).toHaveLength(1);

    // The very same push again (same jti): refused, exit 6, no act.
    await repost(first!);
    const [, replay] = await invocationsAt("/resume/hmac", 2);
    expect(replay!.run.code, replay!.run.stderr).toBe(6);
    expect(errorLine(replay!.run).code).toBe("replayed");
    // The same answer re-signed with a fresh jti (what a Hub retry looks like): already processed, exit 6.
    const fresh = signResponsePush({
      response: JSON.parse(first!.body.toString("utf8")),
      callbackUrl: callback,
      key: { alg: "hmac-sha256", secret: SECRET },
      now: new Date(),
    });
    await repost(first!, { "ma2h-signature": fresh.header });
    const [, , again] = await invocationsAt("/resume/hmac", 3);
    expect(again!.run.code, again!.run.stderr).toBe(6);
    expect(errorLine(again!.run)).toEqual({ code: "replayed", message: expect.stringContaining("already received") });
    expect(actsNow()).toHaveLength(1);
  }, 60_000);

  it("ed25519 (a callback without a secret): run #2 verifies with the Hub's published keys", async () => {
    const callback = `${origin}/resume/ed?scheme=ed25519`;
    const stateFile = join(dir, "state-ed.json");
    writeFileSync(stateFile, JSON.stringify({ step: "canary" }));
    const run1 = await ma2h(
      [
        "ask",
        "select",
        "Next step?",
        "--option",
        "go",
        "--option",
        "stop",
        "--detach",
        "--callback",
        callback,
        "--state",
        stateFile,
      ],
      run1Env(),
    );
    expect(run1.code, run1.stderr).toBe(0);
    await resolve(run1.stdout.trim(), { resolution: "answered", value: "go" });
    const [inv] = await invocationsAt("/resume/ed", 1);
    expect(inv!.run.code, inv!.run.stderr).toBe(0);
    expect(JSON.parse(inv!.run.stdout)).toMatchObject({
      state: { step: "canary" },
      response: { response: { value: "go" } },
    });
  }, 60_000);

  it("a state blob tampered on the way fails to open: exit 5, no act; a tampered signature fails verify: exit 5", async () => {
    const before = actsNow().length;
    // The agent's sealed state with one character of its ciphertext changed — the Hub stores and
    // signs it faithfully, so only the seal can tell.
    const sealed = sealState({ pr: 7, branch: "release/7", note: "tamper me" }, STATE_KEY);
    const ct = sealed.ct as string;
    const mid = Math.floor(ct.length / 2);
    const tampered = { ...sealed, ct: `${ct.slice(0, mid)}${ct[mid] === "A" ? "B" : "A"}${ct.slice(mid + 1)}` };
    const callback = `${origin}/resume/tampered`;
    const body = envelope("ask", A, {
      title: "Tampered state",
      ma2h_version: "0.6",
      state: tampered,
      request: {
        mode: "confirm",
        callback: { mode: "push", url: callback, auth: { scheme: "hmac", secret_ref: "cb" } },
      },
    });
    const sent = await hub.agent(A, "acme").post("/v1/messages", body);
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    await resolve(sent.body.id, { resolution: "answered", value: "approve" });
    const [inv] = await invocationsAt("/resume/tampered", 1);
    expect(inv!.run.code).toBe(5);
    expect(inv!.run.stdout).toBe("");
    expect(errorLine(inv!.run).code).toBe("state_integrity");
    expect(actsNow()).toHaveLength(before);

    // `ma2h verify` on the genuine bytes: 0; on a flipped answer: 5 (payload_sha256 no longer matches).
    const bodyFile = join(dir, "pushed.json");
    writeFileSync(bodyFile, inv!.body);
    const flags = [
      "--body",
      bodyFile,
      "--signature",
      String(inv!.headers["ma2h-signature"]),
      "--callback-url",
      callback,
    ];
    const verifyEnv = { MA2H_CALLBACK_SECRET: SECRET, MA2H_STORE_DIR: join(dir, "verify-store") };
    const ok = await ma2h(["verify", ...flags], verifyEnv);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ in_reply_to: sent.body.id, resolution: "answered" });
    writeFileSync(bodyFile, inv!.body.toString("utf8").replace('"approve"', '"deny"'));
    const flipped = await ma2h(["verify", ...flags], verifyEnv);
    expect(flipped.code).toBe(5);
    expect(errorLine(flipped)).toEqual({
      code: "verification_failed",
      message: expect.stringContaining("signature_mismatch"),
    });
    const wrongKey = await ma2h(["verify", ...flags], {
      ...verifyEnv,
      MA2H_CALLBACK_SECRET: "another secret entirely",
    });
    expect(wrongKey.code).toBe(5);
  }, 60_000);
});

describe("a crash between submit and ack (§8.1)", () => {
  it("rerunning with the same --idempotency-key replays the journaled bytes and recovers the same id", async () => {
    // A proxy that forwards the submit to the Hub but never answers: the Hub accepted it, the ack is lost.
    let acceptedId = "";
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const upstream = await fetch(`${hub.url}${req.url}`, {
          method: req.method,
          headers: {
            "content-type": "application/json",
            ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
          },
          ...(req.method === "POST" ? { body: new Uint8Array(Buffer.concat(chunks)) } : {}),
        });
        const text = await upstream.text();
        if (req.method === "POST" && req.url === "/v1/messages" && upstream.status === 202) {
          acceptedId = JSON.parse(text).id;
          return; // …and the answer never comes back
        }
        res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
      });
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", () => ok()));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const store = join(dir, "crash-store");
    const args = ["ask", "confirm", "Run the migration?", "--idempotency-key", "ci-run-77", "--detach"];
    try {
      const crashed = start(args, { ...run1Env(store), MA2H_URL: proxyUrl });
      await waitFor(() => acceptedId !== "", { timeout: 20_000, what: "the submit's 202 at the proxy" }).catch(
        () => {},
      );
      expect(acceptedId).toMatch(/^msg_/u);
      crashed.child.kill("SIGKILL"); // the crash
      expect((await crashed.done).stdout).toBe("");
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
    // Rebuilding the envelope would be a new created_at: the Hub refuses it as a different payload.
    const rebuilt = await ma2h(args, run1Env(join(dir, "empty-store")));
    expect(rebuilt.code).toBe(4);
    expect(errorLine(rebuilt).code).toBe("idempotency_conflict");
    // The same command with the journal: the exact bytes again, the original ack, the same id.
    const rerun = await ma2h(args, run1Env(store));
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout.trim()).toBe(acceptedId);
    expect(rerun.stderr).toContain("replayed");
    // And waiting on it works as for any ask.
    await resolve(acceptedId, { resolution: "answered", value: "deny" });
    expect(await ma2h(["wait", acceptedId], run1Env(store))).toMatchObject({ code: 1, stdout: "deny\n" });
  }, 60_000);
});
